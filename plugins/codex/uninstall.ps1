# Remove exactly what install.ps1 wrote for Codex (files you edited since are kept).
# Thin: the work is `skillopt-sleep uninstall codex`.
$ErrorActionPreference = 'Stop'
$action = 'uninstall'
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
Write-Error ('skillopt-sleep is not installed for any Python on PATH. Install it first: ' +
  'pip install <its clone> (it is not on PyPI), or set SKILLOPT_SLEEP_PYTHON to the interpreter that has it.')
exit 1
