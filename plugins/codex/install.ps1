# Install the skillopt-sleep skill for Codex (%USERPROFILE%\.agents\skills) and register the MCP
# server in $env:CODEX_HOME\config.toml (skip it with --no-mcp). Re-running is a no-op;
# uninstall.ps1 undoes it. Thin: the work is `skillopt-sleep install codex`.
$ErrorActionPreference = 'Stop'
$action = 'install'
if ($env:SKILLOPT_SLEEP_PYTHON) {
  & $env:SKILLOPT_SLEEP_PYTHON -m skillopt_sleep.install $action codex @args; exit $LASTEXITCODE
}
$clone = Split-Path (Split-Path $PSScriptRoot -Parent) -Parent
$venv = Join-Path $clone '.venv\Scripts\python.exe'  # the clone's own engine (scripts/bootstrap.sh)
if (Test-Path $venv) {
  & $venv -c 'import skillopt_sleep.install' 2>$null
  if ($LASTEXITCODE -eq 0) { & $venv -m skillopt_sleep.install $action codex @args; exit $LASTEXITCODE }
}
$cli = Get-Command skillopt-sleep -ErrorAction SilentlyContinue
if ($cli) { & $cli.Source $action codex @args; exit $LASTEXITCODE }
foreach ($py in @('py', 'python', 'python3')) {
  $found = Get-Command $py -ErrorAction SilentlyContinue
  if ($found) {
    & $found.Source -c 'import skillopt_sleep.install' 2>$null
    if ($LASTEXITCODE -eq 0) {
      & $found.Source -m skillopt_sleep.install $action codex @args; exit $LASTEXITCODE
    }
  }
}
Write-Error ('skillopt-sleep is not installed for any Python on PATH. It is not on PyPI: ' +
  "install it from its clone first, pip install `"$clone`" (see 'Use it from your agent' in the README), " +
  'or set SKILLOPT_SLEEP_PYTHON to the interpreter that has it.')
exit 1
