"""Deterministic synthetic corpus of developer requests, for speed benchmarks.

``make_requests(n, seed)`` returns ``n`` request texts; ``make_labelled(n, seed)`` returns
``(text, family)`` pairs, ``family`` being ``None`` for a one-off.

How it is built (pure Python, no external data, no I/O):

- A *kind* is a recurring request type ("fix a failing test", "restart a service",
  "summarise an arXiv paper", ...) with hand-written paraphrase frames and slot fillers
  (files, test names, services, hosts, paper ids, flags, pasted error strings, versions...).
- A *family* is one kind bound to one object (the ``auth`` login test, the ``api`` service on
  ``web-2``): its stable slots are drawn once; volatile slots (the pasted error, the paper id of
  the week) are redrawn for every occurrence. Two families of the same kind differ in their
  object, as a developer's "fix test_login" and "fix test_refund" are different recurring tasks.
- Family sizes are heavy-tailed (every family has at least two members).
- Every occurrence is dressed independently: random frame, optional prefix/suffix, lowercase,
  and a keyboard typo now and then.
- One-offs (``one_off_share`` of the corpus, 15% by default) come from separate one-off frames,
  or from a family kind with a fresh object no family uses.

The same ``(n, seed)`` always gives the same list (no ``hash()``, no set iteration), and 10,000
requests take a few tens of milliseconds.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["KIND_NAMES", "make_labelled", "make_requests"]

Binding = dict[str, str]

# ---------------------------------------------------------------------------- slot pools

MODULES = [
    "auth", "billing", "orders", "users", "payments", "search", "export", "inventory",
    "notifications", "reports", "checkout", "sessions", "uploads", "webhooks", "scheduler",
    "cache", "config", "metrics", "invoices", "profiles",
]  # fmt: skip
TEST_VERBS = [
    "login", "create", "update", "delete", "refund", "list", "sync", "retry", "expire",
    "validate", "render", "parse", "signup", "logout", "import", "merge",
]  # fmt: skip
ASSERT_ERRORS = [
    "AssertionError: assert 302 == 200",
    "assert 401 == 200",
    "AssertionError: expected 3 items, got 2",
    "assert None is not None",
    "KeyError: 'sessionid'",
    "AssertionError: assert 'ok' in ''",
    "TypeError: 'NoneType' object is not subscriptable",
    "django.db.utils.IntegrityError: UNIQUE constraint failed: users.email",
    "FAILED (failures=1)",
    "E       assert 0 == 1",
]
EXCEPTIONS = [
    "AttributeError: 'NoneType' object has no attribute 'id'",
    "KeyError: 'user_id'",
    "TypeError: unsupported operand type(s) for +: 'int' and 'str'",
    "ValueError: invalid literal for int() with base 10: ''",
    "IndexError: list index out of range",
    "ZeroDivisionError: division by zero",
    "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0",
    "RecursionError: maximum recursion depth exceeded",
    "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
    "sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection refused",
]
BEHAVIOURS = [
    "rate limiting", "pagination", "token expiry", "retry on 503", "input validation",
    "unicode names", "empty payloads", "concurrent updates", "timezone handling",
    "permission checks", "soft delete", "idempotency keys",
]  # fmt: skip
TOOLS = ["mytool", "acme", "skillctl", "dbsync", "pipectl", "relay"]
COMMANDS = [
    "export", "import", "sync", "deploy", "cleanup", "report", "migrate", "backup", "list",
    "status", "purge", "fetch",
]  # fmt: skip
FLAGS = {
    "--json": "so i can pipe it into jq",
    "--dry-run": "so it only prints what it would do",
    "--verbose": "i can't see what it's doing",
    "--quiet": "it's too noisy in cron",
    "--since": "to only take things after a date",
    "--limit": "to cap how many rows come back",
    "--force": "to skip the confirmation prompt",
    "--output": "to write to a file instead of stdout",
    "--no-color": "the ansi codes break our logs",
    "--config": "to point at a different config file",
    "--parallel": "it's too slow one at a time",
    "--exclude": "to skip some paths",
}
UPGRADES = [
    ("django", "4.2", "5.0"), ("numpy", "1.26", "2.0"), ("pydantic", "1.10", "2.7"),
    ("react", "17", "18"), ("sqlalchemy", "1.4", "2.0"), ("node", "18", "20"),
    ("python", "3.10", "3.12"), ("typescript", "4.9", "5.4"), ("webpack", "4", "5"),
    ("spring boot", "2.7", "3.2"), ("celery", "4.4", "5.3"), ("postgres", "13", "16"),
    ("pytest", "7", "8"), ("next.js", "13", "14"), ("flask", "2.3", "3.0"),
]  # fmt: skip
VULN_PKGS = [
    "lodash", "minimist", "pyyaml", "urllib3", "jinja2", "axios", "requests", "cryptography",
    "semver", "follow-redirects", "pillow", "werkzeug", "express", "tar", "protobuf",
]  # fmt: skip
SOURCE_PATHS = [
    "utils/parsing.py", "src/billing/invoice.py", "app/services/orders.py", "lib/cache.py",
    "api/client.py", "core/models.py", "src/helpers.py", "etl/transform.py", "cli/main.py",
    "worker/tasks.py", "reports/builder.py", "auth/tokens.py", "src/storage/s3.py",
    "integrations/stripe.py", "search/indexer.py",
]  # fmt: skip
TABLE_COLUMNS = [
    ("users", "last_login", "timestamp"), ("orders", "shipped_at", "timestamp"),
    ("projects", "is_archived", "boolean"), ("accounts", "deleted_at", "timestamp"),
    ("customers", "phone", "varchar(32)"), ("invoices", "due_date", "date"),
    ("events", "source", "text"), ("teams", "plan", "varchar(16)"),
    ("products", "sku", "varchar(64)"), ("payments", "refunded_at", "timestamp"),
    ("sessions", "user_agent", "text"), ("subscriptions", "trial_ends_at", "timestamp"),
]  # fmt: skip
FUNCTIONS = [
    "process_order", "sync_inventory", "build_report", "handle_webhook", "render_invoice",
    "import_users", "compute_totals", "send_digest", "parse_config", "merge_accounts",
    "reconcile_payments", "generate_sitemap",
]  # fmt: skip
SERVICES = [
    "api", "worker", "nginx", "gunicorn", "celery", "payments", "search", "ingest",
    "gateway", "scheduler", "notifier",
]  # fmt: skip
HOSTS = [
    f"{role}-{i}"
    for role in ("web", "app", "db", "worker", "build", "edge", "ci-runner", "prod-web")
    for i in range(1, 7)
]
LIBRARIES = [
    ("pandas", "polars", "our etl jobs"), ("requests", "httpx", "the api client"),
    ("flask", "fastapi", "the new service"), ("pydantic", "attrs", "config objects"),
    ("celery", "rq", "background jobs"), ("pytest", "unittest", "the test suite"),
    ("sqlalchemy", "peewee", "the data layer"), ("click", "typer", "the cli"),
    ("jest", "vitest", "frontend tests"), ("webpack", "vite", "the frontend build"),
    ("redis", "memcached", "caching"), ("kafka", "rabbitmq", "the event bus"),
    ("terraform", "pulumi", "infra as code"), ("numpy", "jax", "the simulation code"),
]  # fmt: skip
TOPICS = [
    "speculative decoding", "kv cache compression", "retrieval-augmented generation",
    "state space models", "mixture of experts", "instruction tuning", "code generation",
    "long context attention", "rlhf", "diffusion language models", "model merging",
    "post-training quantization", "tool-using agents", "program synthesis",
    "test-time compute", "contrastive sentence embeddings",
]  # fmt: skip
AUDIENCES = ["the reading group", "my team", "the newsletter", "our wiki", "the lab meeting"]
ENVS = ["staging", "stg", "qa", "preprod", "the staging cluster"]
PROD_ENVS = ["production", "prod", "the prod cluster", "live"]
NAMESPACES = ["default", "data", "payments", "web", "ml", "infra"]
CRASH_REASONS = [
    "exit code 137",
    "OOMKilled",
    "logs show 'connection refused' to redis",
    "Error: Cannot find module '/app/server.js'",
    "readiness probe failed: HTTP probe failed with statuscode: 503",
    "panic: runtime error: invalid memory address or nil pointer dereference",
    "ImportError: libpq.so.5: cannot open shared object file",
]
CERT_DOMAINS = [
    "api.example.com", "staging.example.com", "app.acme.io", "docs.example.org",
    "shop.example.net", "auth.acme.io", "grafana.internal.example.com",
]  # fmt: skip
DATABASES = ["orders", "main", "analytics", "users", "billing", "inventory"]
SCRIPTS = [
    "scripts/cleanup.py", "sync_users.py", "scripts/report.py", "bin/rotate_keys.sh",
    "jobs/digest.py", "scripts/backup.sh", "tools/reindex.py", "jobs/expire_sessions.py",
]  # fmt: skip
SCHEDULES = [
    "every night at 3am", "daily at 6:00", "every 15 minutes", "every sunday", "hourly",
    "on weekdays at 9", "at midnight utc", "twice a day",
]  # fmt: skip
LOG_APPS = ["myapp", "nginx", "api", "worker", "celery", "ingest"]
INCIDENTS = [
    "the payments downtime", "the 502s on tuesday", "the redis failure", "the login outage",
    "the dns incident", "the queue backlog", "the data loss scare", "the expired cert outage",
]  # fmt: skip
CHANGES = [
    "the --json flag", "the crash on guest orders", "the new export format",
    "dropping python 3.9", "the retry fix", "the faster search", "the timezone bug",
    "the new settings page",
]  # fmt: skip
README_SECTIONS = [
    "installation", "configuration", "usage", "contributing", "troubleshooting",
    "deployment", "development setup", "faq",
]  # fmt: skip
EVENTS = [
    ("the database maintenance", "saturday"), ("the api downtime", "sunday night"),
    ("the staging rebuild", "tomorrow morning"), ("the office network upgrade", "friday"),
    ("the ci migration", "next week"), ("the auth provider switch", "monday"),
]  # fmt: skip
RESOURCES = ["orders", "users", "invoices", "events", "products", "comments", "projects"]
RENAMES = [
    ("customer", "account"), ("Client", "Tenant"), ("user_id", "account_id"),
    ("fetch_data", "load_records"), ("Manager", "Coordinator"), ("item", "line_item"),
    ("blob", "artifact"), ("job", "task"),
]  # fmt: skip
LINTERS = ["ruff", "eslint", "flake8", "mypy", "pylint", "golangci-lint"]
BRANCHES = [
    "feature/checkout-redesign", "fix/guest-orders", "refactor/storage", "feat/json-export",
    "chore/deps", "feature/sso", "fix/flaky-upload",
]  # fmt: skip


def _paper_id(r: random.Random) -> str:
    return f"{r.randint(18, 25):02d}{r.randint(1, 12):02d}.{r.randint(1, 29999):05d}"


def _version(r: random.Random) -> str:
    return f"{r.randint(0, 6)}.{r.randint(0, 20)}.{r.randint(0, 9)}"


# ---------------------------------------------------------------------------- kinds


@dataclass(frozen=True)
class Kind:
    name: str
    domain: str
    frames: tuple[str, ...]
    bind: Callable[[random.Random], Binding]
    volatile: tuple[str, ...] = ()  # slots redrawn for every occurrence


def _b_test(r: random.Random) -> Binding:
    mod = r.choice(MODULES)
    verb = r.choice(TEST_VERBS)
    return {
        "mod": mod,
        "test": f"test_{mod}_{verb}" if r.random() < 0.5 else f"test_{verb}",
        "file": f"tests/test_{mod}.py",
        "err": r.choice(ASSERT_ERRORS),
    }


def _b_flag(r: random.Random) -> Binding:
    flag = r.choice(list(FLAGS))
    return {"tool": r.choice(TOOLS), "cmd": r.choice(COMMANDS), "flag": flag, "why": FLAGS[flag]}


def _b_upgrade(r: random.Random) -> Binding:
    pkg, old, new = r.choice(UPGRADES)
    return {"pkg": pkg, "old": old, "new": new}


def _b_vuln(r: random.Random) -> Binding:
    return {
        "pkg": r.choice(VULN_PKGS),
        "adv": f"CVE-20{r.randint(19, 25)}-{r.randint(1000, 49999)}",
        "ver": _version(r),
    }


def _b_path(r: random.Random) -> Binding:
    path = r.choice(SOURCE_PATHS)
    return {"path": path, "mod": path.rsplit("/", 1)[-1].removesuffix(".py")}


def _b_migration(r: random.Random) -> Binding:
    table, col, ctype = r.choice(TABLE_COLUMNS)
    return {"table": table, "col": col, "ctype": ctype}


def _b_function(r: random.Random) -> Binding:
    return {
        "func": r.choice(FUNCTIONS),
        "path": r.choice(SOURCE_PATHS),
        "lines": str(r.choice([150, 200, 300, 450, 800])),
    }


def _b_flaky(r: random.Random) -> Binding:
    mod = r.choice(MODULES)
    return {
        "mod": mod,
        "test": f"test_{mod}_{r.choice(TEST_VERBS)}",
        "file": f"tests/test_{mod}.py",
        "ci": r.choice(["github actions", "CI", "jenkins", "gitlab ci", "buildkite"]),
        "odds": r.choice(["1 in 5", "1 in 10", "about a third of", "every few"]),
    }


def _b_exception(r: random.Random) -> Binding:
    mod = r.choice(MODULES)
    return {
        "mod": mod,
        "err": r.choice(EXCEPTIONS),
        "path": f"{mod}/views.py",
        "line": str(r.randint(20, 400)),
        "page": r.choice(["detail page", "list page", "settings page", "checkout", "dashboard"]),
    }


def _b_component(r: random.Random) -> Binding:
    return {
        "comp": r.choice(["worker", "scheduler", "importer", "webhook handler", "sync job"]),
        "sink": r.choice(["loki", "datadog", "elasticsearch", "cloudwatch"]),
    }


def _b_resource(r: random.Random) -> Binding:
    res = r.choice(RESOURCES)
    return {
        "res": res,
        "parent": r.choice(["users", "projects", "teams", "accounts"]),
        "rows": r.choice(["50k", "200k", "2 million", "30k"]),
    }


def _b_rename(r: random.Random) -> Binding:
    old, new = r.choice(RENAMES)
    return {"old": old, "new": new}


def _b_lint(r: random.Random) -> Binding:
    return {"linter": r.choice(LINTERS), "count": str(r.randint(3, 180))}


def _b_docker(r: random.Random) -> Binding:
    return {
        "size": r.choice(["1.8GB", "2.3GB", "3GB", "900MB", "4.1GB"]),
        "svc": r.choice(SERVICES),
        "base": r.choice(["python:3.12-slim", "alpine", "distroless", "node:20-slim"]),
    }


def _b_query(r: random.Random) -> Binding:
    table, col, _ = r.choice(TABLE_COLUMNS)
    return {
        "table": table,
        "col": col,
        "page": r.choice(["dashboard", "admin list", "reports page", "search page"]),
        "ms": str(r.choice([3000, 9000, 12000, 25000])),
    }


def _b_async(r: random.Random) -> Binding:
    return {"path": r.choice(SOURCE_PATHS), "n": str(r.choice([50, 200, 1000, 5000]))}


def _b_paper(r: random.Random) -> Binding:
    return {"pid": _paper_id(r), "aud": r.choice(AUDIENCES), "words": r.choice(["150", "200"])}


def _b_related(r: random.Random) -> Binding:
    return {"topic": r.choice(TOPICS), "pid": _paper_id(r), "year": str(r.randint(2019, 2024))}


def _b_libs(r: random.Random) -> Binding:
    a, b, use = r.choice(LIBRARIES)
    return {"a": a, "b": b, "use": use}


def _b_notes(r: random.Random) -> Binding:
    return {"topic": r.choice(TOPICS), "n": str(r.randint(3, 12))}


def _b_service(r: random.Random) -> Binding:
    return {"svc": r.choice(SERVICES), "host": r.choice(HOSTS)}


def _b_disk(r: random.Random) -> Binding:
    return {
        "host": r.choice(HOSTS),
        "pct": str(r.randint(90, 99)),
        "dir": r.choice(["/var", "/", "/data", "/home", "/var/lib/docker"]),
    }


def _b_logs(r: random.Random) -> Binding:
    return {
        "app": r.choice(LOG_APPS),
        "days": str(r.choice([7, 14, 30])),
        "gb": str(r.randint(5, 80)),
    }


def _b_deploy(r: random.Random) -> Binding:
    return {
        "env": r.choice(ENVS),
        "ref": r.choice(["main", *BRANCHES]),
        "tag": f"v{_version(r)}-rc{r.randint(1, 4)}",
    }


def _b_rollback(r: random.Random) -> Binding:
    return {
        "env": r.choice(PROD_ENVS),
        "ver": _version(r),
        "svc": r.choice(SERVICES),
        "rev": str(r.randint(3, 120)),
    }


def _b_crash(r: random.Random) -> Binding:
    svc = r.choice(SERVICES)
    return {
        "svc": svc,
        "pod": f"{svc}-{r.randrange(16**5):05x}",
        "ns": r.choice(NAMESPACES),
        "why": r.choice(CRASH_REASONS),
        "n": str(r.randint(5, 90)),
    }


def _b_cert(r: random.Random) -> Binding:
    return {"dom": r.choice(CERT_DOMAINS), "days": str(r.randint(2, 14))}


def _b_backup(r: random.Random) -> Binding:
    return {"db": r.choice(DATABASES), "bucket": r.choice(["s3", "the backups bucket", "gcs"])}


def _b_memory(r: random.Random) -> Binding:
    return {
        "host": r.choice(HOSTS),
        "pct": str(r.randint(85, 99)),
        "proc": r.choice(["python", "java", "node", "postgres", "gunicorn"]),
        "gb": str(r.randint(4, 30)),
    }


def _b_cron(r: random.Random) -> Binding:
    return {"script": r.choice(SCRIPTS), "when": r.choice(SCHEDULES)}


def _b_release(r: random.Random) -> Binding:
    return {"ver": _version(r), "prev": _version(r)}


def _b_change(r: random.Random) -> Binding:
    return {"change": r.choice(CHANGES)}


def _b_pr(r: random.Random) -> Binding:
    return {"branch": r.choice(BRANCHES), "issue": str(r.randint(10, 999))}


def _b_readme(r: random.Random) -> Binding:
    return {"section": r.choice(README_SECTIONS)}


def _b_event(r: random.Random) -> Binding:
    what, when = r.choice(EVENTS)
    return {"what": what, "when": when}


def _b_incident(r: random.Random) -> Binding:
    return {"inc": r.choice(INCIDENTS)}


def _b_none(r: random.Random) -> Binding:
    return {"who": r.choice(["my manager", "the team channel", "standup", "the weekly sync"])}


KINDS: tuple[Kind, ...] = (
    Kind("fix-failing-test", "coding", (
        "fix the failing {mod} test in {file}",
        "{test} is failing again, please fix it",
        "the {mod} test in {file} keeps breaking, can you look",
        "fix failing {mod} test",
        "pytest {file}::{test} -> {err}. make it pass again",
        "{mod} test red again on main, figure out why and fix",
        "can u fix {test}? it broke after the last refactor",
        "The {mod} test started failing this morning. Could you investigate and get it green?",
        "{test} failing with {err}, pls fix",
        "tests in {file} are failing again ({test}), sort it out",
    ), _b_test, ("err",)),
    Kind("add-test", "coding", (
        "add a test for {mod} {beh}",
        "we have no coverage for {beh} in {mod}, add a pytest case",
        "write a regression test for the {mod} {beh}",
        "need tests for {beh} on the {mod} endpoint",
        "{file} should also cover {beh}, pls add one",
        "add unit tests covering {beh} edge cases in {mod}",
        "Could you write tests that exercise {beh} for the {mod} module?",
    ), lambda r: {**_b_test(r), "beh": r.choice(BEHAVIOURS)}),
    Kind("add-cli-flag", "coding", (
        "add a {flag} flag to the {cmd} command",
        "make `{tool} {cmd}` accept {flag}",
        "{cmd} cmd should support {flag}, add it",
        "Could you add a `{flag}` switch to the {cmd} subcommand?",
        "{cmd}: add {flag} option",
        "add {flag} to cli {cmd} pls, {why}",
        "i need {flag} on `{tool} {cmd}` {why}",
    ), _b_flag),
    Kind("upgrade-dependency", "coding", (
        "upgrade {pkg} from {old} to {new}",
        "bump {pkg} to {new} and fix whatever breaks",
        "we're still on {pkg} {old}, move us to {new} and run the tests",
        "update {pkg} in the lockfile to {new}",
        "{pkg} upgrade pls, latest {new}",
        "can you do the {pkg} {new} migration? start with bumping the pin",
        "Upgrade {pkg} to {new}; check the release notes for removed APIs we still use.",
    ), _b_upgrade),
    Kind("fix-vulnerability", "coding", (
        "dependabot says {pkg} has a vuln, bump it",
        "pip-audit flags {pkg} {ver}, fix it",
        "there's a CVE in our pinned {pkg}, upgrade to a patched release",
        "security scan failed on {adv} in {pkg} {ver}. patch it",
        "resolve the security alert for {pkg}",
        "fix the vulnerable {pkg} version flagged by the audit",
    ), _b_vuln, ("adv",)),
    Kind("add-type-hints", "coding", (
        "add type hints to {path}",
        "annotate all the functions in {path} with types, mypy --strict should pass",
        "{mod} has no typing at all, please add annotations",
        "mypy complains: Function is missing a type annotation [no-untyped-def] in {path}. add the hints",
        "type-annotate {mod}",
        "add typing to {path}, use list[str] style not List",
    ), _b_path),
    Kind("write-migration", "coding", (
        "write an alembic migration that adds {col} to {table}",
        "need a migration: {table}.{col} {ctype} nullable",
        "add `{col}` to the {table} table, with migration",
        "create the db migration for the new column on {table} ({col}, {ctype})",
        "alembic revision for adding {col} to {table} pls, include downgrade",
        "generate a schema migration adding {col} {ctype} to {table}",
    ), _b_migration),
    Kind("refactor-function", "coding", (
        "split {func} into smaller functions, it's {lines} lines",
        "refactor {path}, {func} does way too much",
        "break up {func} into helpers, keep behaviour identical",
        "can you refactor {func}? extract the validation and the side effects",
        "{func} is unreadable, pull out some helper functions. no behaviour change",
        "Refactor: decompose {func} in {path} into smaller testable units.",
        "clean up {func}, its nested like 6 levels deep",
    ), _b_function),
    Kind("fix-flaky-test", "coding", (
        "{test} is flaky in {ci}, fails {odds} runs",
        "the {mod} test randomly fails on {ci} but passes locally",
        "investigate intermittent failure: {file}::{test} - TimeoutError",
        "can you make the flaky {mod} test deterministic? it's blocking merges",
        "ci is red again because of that flaky {mod} test, fix it properly, not with retries",
        "some test in {file} keeps randomly failing, pls find the race",
    ), _b_flaky, ("odds",)),
    Kind("fix-exception", "coding", (
        "{err} in {path} line {line}, fix",
        "getting {err} on the {mod} {page}, handle it",
        "{mod} {page} crashes with a 500, traceback says {err}",
        'fix the crash in {path}:\n  File "{path}", line {line}\n{err}',
        "500 on the {mod} {page} again: {err}",
        "pls guard against the {err} in the {mod} views",
    ), _b_exception, ("line",)),
    Kind("add-logging", "coding", (
        "add structured logging to the {comp}",
        "replace the print statements in the {comp} with proper logging",
        "the {comp} has no logs, add logging with ids in every line",
        "switch {comp} logging to json lines so we can ship it to {sink}",
        "i can't debug the {comp}, there is zero log output. add log statements",
    ), _b_component),
    Kind("add-endpoint", "coding", (
        "add a GET /{parent}/{{id}}/{res} endpoint",
        "need an api route that returns the {res} of one of the {parent}",
        "add an endpoint to list {res} for a given {parent} entry, with serializer and test",
        "expose {res} per {parent} over the REST api",
        "create GET /api/v1/{parent}/<id>/{res} returning a json list",
    ), _b_resource),
    Kind("add-pagination", "coding", (
        "add pagination to the /{res} list endpoint",
        "the {res} api returns all {rows} rows at once, paginate it",
        "implement cursor based pagination for GET /{res}",
        "add limit/offset params to the {res} list endpoint",
        "{res} endpoint is super slow because it returns everything, add page + page_size",
    ), _b_resource),
    Kind("rename-symbol", "coding", (
        "rename {old} to {new} everywhere in the codebase",
        "we're renaming {old} -> {new}, update models, views and tests",
        "global rename: {old} => {new}",
        "can you do the {old}→{new} rename across the repo, keep a deprecated alias",
        "replace {old} with {new} in the code and the api field names",
    ), _b_rename),
    Kind("fix-lint", "coding", (
        "fix the {linter} errors",
        "{linter} reports {count} errors, clean them up",
        "make {linter} pass",
        "CI lint job failing ({linter}, {count} issues), fix all of them",
        "clean up the {linter} warnings without changing behaviour pls",
    ), _b_lint, ("count",)),
    Kind("shrink-docker-image", "coding", (
        "make the {svc} docker image smaller, it's {size}",
        "use a multi-stage build to shrink the {svc} image",
        "our {svc} container image is huge, can you slim it down",
        "switch the {svc} base image to {base} and drop build deps from the final stage",
        "reduce the {svc} image size, pulls take forever",
    ), _b_docker, ("size",)),
    Kind("speed-up-query", "coding", (
        "the {page} query is slow, add an index",
        "EXPLAIN shows a seq scan on {table} where {col} = $1, fix it",
        "optimize the slow sql behind the {page}, takes {ms}ms",
        "{page} takes forever to load, I think it's the {table} query. speed it up",
        "add an index on {table}({col})",
    ), _b_query, ("ms",)),
    Kind("convert-to-async", "coding", (
        "convert the http calls in {path} to async with httpx",
        "make {path} async, we're blocking the event loop",
        "replace requests with httpx.AsyncClient in {path}",
        "port {path} to asyncio so the calls run concurrently",
        "{path} does {n} requests sequentially, rewrite it with async + gather",
    ), _b_async),
    Kind("summarize-paper", "research", (
        "summarize arXiv paper {pid} for {aud} and give its arXiv id",
        "give me a summary of arXiv {pid} with the id at the end",
        "tl;dr of https://arxiv.org/abs/{pid} pls",
        "summarise {pid}: main contribution, method, results, limitations",
        "can you read this paper and give me a short summary? arxiv.org/pdf/{pid}",
        "Please write a one-paragraph summary of the preprint {pid} for {aud}.",
        "whats this paper about: arXiv:{pid}",
        "summary of arxiv {pid} please, keep it under {words} words",
    ), _b_paper, ("pid",)),
    Kind("related-work", "research", (
        "find related work on {topic}",
        "I'm writing the related work section, find prior papers on {topic}",
        "collect prior art on {topic}, with arxiv links",
        "what other papers do {topic} like arXiv {pid}? list 10 with ids",
        "search for related literature on {topic}, {year} onwards",
        "who else has worked on {topic}? give me papers",
    ), _b_related, ("pid", "year")),
    Kind("compare-libraries", "research", (
        "compare {a} and {b} for {use}",
        "{a} vs {b}, which should we use for {use}?",
        "should we switch from {a} to {b}? pros/cons, performance, api differences",
        "evaluate {b} as a replacement for {a} in {use}",
        "{a} or {b} for {use}, give me a comparison table",
    ), _b_libs),
    Kind("literature-notes", "research", (
        "make reading notes for the {n} papers on {topic}: problem, method, results, questions",
        "turn my highlights from the {topic} papers into structured literature notes",
        "write lit review notes on {topic}, one section per paper",
        "I read {n} papers on {topic}, help me write up notes for my literature review",
    ), _b_notes, ("n",)),
    Kind("restart-service", "ops", (
        "restart the {svc} service on {host}",
        "sudo systemctl restart {svc} on {host} pls",
        "{svc} on {host} is hung, bounce it",
        "can you restart {svc}? {host} is returning 502",
        "kick the {svc} process on {host}, then check it comes back healthy",
        "{svc} stopped answering health checks on {host}, restart it",
    ), _b_service),
    Kind("check-disk", "ops", (
        "check disk usage on {host}",
        "No space left on device on {host}, what's taking the space",
        "df -h shows {dir} at {pct}% on {host}, find the big directories",
        "how much disk is left on {host}?",
        "disk almost full alert on {host}, investigate",
        "find out what's filling up {dir} on {host}",
    ), _b_disk, ("pct",)),
    Kind("rotate-logs", "ops", (
        "set up logrotate for /var/log/{app}/*.log, keep {days} days, compress",
        "the {app} logs are {gb}GB, configure rotation",
        "rotate the {app} logs daily",
        "{app} logs never get rotated, add a logrotate config",
        "add log rotation so {app}.log doesn't grow forever",
    ), _b_logs, ("gb",)),
    Kind("deploy", "ops", (
        "deploy {ref} to {env}",
        "push {ref} to {env} so QA can test",
        "ship {tag} to {env}",
        "can you do a deploy of {ref} to {env}? make deploy",
        "get the latest {ref} build onto {env} and run the smoke tests",
    ), _b_deploy, ("tag",)),
    Kind("rollback", "ops", (
        "roll back {svc} on {env} to the previous release, {ver} is broken",
        "revert the {svc} deploy on {env}, error rate spiked",
        "undo the last {svc} deploy on {env} asap",
        "rollback {svc} to the last known good image tag",
        "helm rollback {svc} to revision {rev}",
    ), _b_rollback, ("ver", "rev")),
    Kind("k8s-crashloop", "ops", (
        "the {svc} pod is in CrashLoopBackOff, figure out why",
        "kubectl get pods -n {ns} shows {pod} restarting constantly",
        "{svc} pod keeps restarting, {why}",
        "{pod} CrashLoopBackOff after the config change, debug it",
        "k8s: {svc} container restarted {n} times in the last hour, find the cause",
        "why does the {svc} deployment in {ns} keep crashlooping? {why}",
    ), _b_crash, ("pod", "n")),
    Kind("renew-cert", "ops", (
        "the ssl cert for {dom} expires in {days} days, renew it",
        "renew the letsencrypt certificate for {dom}",
        "browser says NET::ERR_CERT_DATE_INVALID on {dom}, fix the cert",
        "certbot renew is failing for {dom}, can you look",
        "tls certificate expiring soon alert for {dom}, please rotate it",
    ), _b_cert, ("days",)),
    Kind("backup-db", "ops", (
        "take a backup of the {db} db before we run the migration",
        "pg_dump the {db} database to {bucket}",
        "make a snapshot of the {db} database first, just in case",
        "back up the {db} db now please",
        "I want a full backup of the {db} postgres, do it and verify it restores",
    ), _b_backup),
    Kind("high-memory", "ops", (
        "memory usage on {host} is at {pct}%, what's eating it",
        "find what's using all the ram on {host}",
        "{host} is swapping like crazy, investigate",
        "high memory alert on {host}, check which process",
        "the {proc} process on {host} grows to {gb}GB after a day, is it leaking?",
    ), _b_memory, ("pct", "gb")),
    Kind("schedule-job", "ops", (
        "set up a cron job to run {script} {when}",
        "schedule {script} {when}",
        "add a crontab entry for {script}, {when}",
        "run {script} {when} via cron",
        "create a systemd timer that runs {script} {when}",
    ), _b_cron),
    Kind("release-notes", "writing", (
        "write release notes for v{ver}",
        "draft the release notes for {ver} from the merged PRs since v{prev}",
        "release notes for {ver} please, user-facing, grouped by features/fixes",
        "prepare the GitHub release text for tag v{ver}",
        "summarize the changes since v{prev} into release notes for customers",
    ), _b_release, ("prev",)),
    Kind("changelog", "writing", (
        "add a changelog entry for {change}",
        "update CHANGELOG.md with {change} under Unreleased",
        "write the changelog line for {change}",
        "changelog pls for {change}, keep-a-changelog format",
    ), _b_change),
    Kind("pr-description", "writing", (
        "write a PR description for {branch}",
        "draft the pull request body for {branch}: what, why, how to test",
        "pr description pls, link issue #{issue}",
        "summarize my diff on {branch} into a pull request description",
        "write a good PR text for {branch} so reviewers know where to start",
    ), _b_pr, ("issue",)),
    Kind("readme-section", "writing", (
        "add a {section} section to the README",
        "README needs a {section} section",
        "document {section} in README.md",
        "the readme says nothing about {section}, fix that",
        "write the {section} part of the readme",
    ), _b_readme),
    Kind("team-email", "writing", (
        "write an email to the team about {what} on {when}",
        "draft a heads-up mail about {what} ({when})",
        "email everyone about {what}, it's happening {when}",
        "announce {what} on {when} to the engineering list",
        "write a short note to the team: {what}, {when}",
    ), _b_event),
    Kind("postmortem", "writing", (
        "write the postmortem for {inc}",
        "draft an incident report for {inc}: timeline, root cause, action items",
        "help me write up the incident review for {inc}",
        "blameless post-mortem doc for {inc}, use our template",
        "write the RCA for {inc}",
    ), _b_incident),
    Kind("docstrings", "writing", (
        "write docstrings for the public functions in {path}",
        "add google-style docstrings to everything in {path}",
        "document the functions in {mod}",
        "missing docstrings in {path}, pydocstyle complains, add them",
    ), _b_path),
    Kind("status-update", "writing", (
        "write my weekly status update for {who} from my commits",
        "draft the friday update for {who}",
        "summarize what i did this week for {who}",
        "weekly report for {who} pls: shipped, in progress, blocked",
    ), _b_none),
)  # fmt: skip

KIND_NAMES: tuple[str, ...] = tuple(k.name for k in KINDS)

# ---------------------------------------------------------------------------- one-offs

_ONE_OFF_FRAMES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("write a python function that {a}", ("task",)),
    ("write a script in {b} that {a}", ("task", "lang")),
    ("explain how {a} works", ("concept",)),
    ("explain the difference between {a} in one paragraph", ("pair",)),
    ("generate a .gitignore for a {a} project", ("lang",)),
    ("port {a} from {b} to {c}", ("script", "lang", "lang")),
    ("set up {a} for the {b} repo", ("tool", "lang")),
    ("proofread this paragraph about {a} for my blog", ("concept",)),
    ("write a haiku about {a} for the random channel", ("concept",)),
    ("draft a job description for a {a}", ("role",)),
    ("write a cover letter for a {a} position at {b}", ("role", "company")),
    ("why is ping to 10.{n}.{o1}.{o2} timing out from the worker subnet", ()),
    ("when did {a} first come out and who maintains it now", ("tool",)),
    ("outline slides for my {n}0 minute talk on {a}", ("concept",)),
    ("is there a {a} library for parsing {b} files?", ("lang", "fmt")),
    ("convert this {a} file to {b}", ("fmt", "fmt")),
    ("generate {n}00 rows of fake {a} data for local testing", ("res",)),
    ("create a read-only postgres user for the {a} team", ("team",)),
    ("add {a}'s new ssh key to {b}", ("person", "host")),
    ("write a thank-you note to {a} for {b}", ("person", "favour")),
    ("give me a reading list on {a}", ("concept",)),
    ("estimate the monthly cost of {n} {a} instances on aws", ("instance",)),
    ("what does `{a}` do exactly", ("shell",)),
    ("add a {a} to the {b} page", ("widget", "page")),
    ("translate the strings in i18n/en.json to {a}", ("human",)),
    ("create an s3 bucket {b}-{a}-{k} with versioning", ("res", "team")),
    ("move the dns for {a}.example.com to cloudflare", ("sub",)),
    ("mount the new {n}00G volume at /data{m} on {a}", ("host",)),
    ("configure a prometheus alert when {a} > {n}000 for {m}m", ("metric",)),
    ("write a regex that matches {a}", ("pattern",)),
    ("turn the notes from the {a} sync on march {k} into action items with owners", ("team",)),
    ("write a tweet announcing {a} {n}.{m}", ("company",)),
    ("rewrite this error message to be friendlier: 'ERR 0x{k}: {a}'", ("rawerr",)),
    ("set up a wireguard tunnel between {a} and the vpc in {b}", ("site", "region")),
)
_ONE_OFF_FILL: dict[str, tuple[str, ...]] = {
    "task": (
        "converts roman numerals to ints",
        "flattens nested dicts",
        "parses iso durations",
        "dedupes a list while keeping order",
        "computes a rolling median",
        "validates IBANs",
        "chunks an iterator",
        "pretty prints a byte size",
    ),
    "concept": (
        "raft leader election",
        "bloom filters",
        "consistent hashing",
        "the python GIL",
        "vector clocks",
        "b-trees",
        "tcp slow start",
        "copy-on-write",
        "rust lifetimes",
        "property based testing",
        "category theory",
        "CRDTs",
        "garbage collection",
    ),
    "pair": (
        "processes and threads",
        "tcp and udp",
        "p50 and p99 latency",
        "git rebase and git merge",
        "a mutex and a semaphore",
        "docker and podman",
        "a view and a materialized view",
        "optimistic and pessimistic locking",
        "at-least-once and exactly-once delivery",
    ),
    "company": ("acme", "globex", "initech", "umbrella labs", "hooli", "stark data"),
    "favour": ("fixing our billing", "the onboarding docs", "covering my on-call", "the demo"),
    "shell": (
        "set -euo pipefail",
        "git rebase --onto main feature~3",
        "find . -name '*.pyc' -delete",
        "xargs -0 -n1",
        "tar -xzvf",
        "ssh -L 5432:localhost:5432 db-1",
        "chmod 2775",
        "git bisect run pytest",
        "awk '{print $2}'",
        "kill -HUP 1",
    ),
    "widget": ("dark mode toggle", "search box", "breadcrumb", "keyboard shortcut", "tooltip"),
    "page": ("settings", "billing", "profile", "admin", "onboarding", "pricing"),
    "human": ("french", "german", "japanese", "brazilian portuguese", "polish", "korean"),
    "sub": ("docs", "status", "blog", "grafana", "sso", "cdn", "beta"),
    "metric": ("queue depth", "p99 latency in ms", "open connections", "5xx per minute"),
    "pattern": (
        "iso dates",
        "semver strings",
        "uk postcodes",
        "ipv4 addresses",
        "hex colours",
        "jira ticket ids",
    ),
    "rawerr": ("bad input", "unexpected state", "quota", "EOF", "nil ref"),
    "site": ("the office", "the berlin office", "the colo", "my home lab"),
    "region": ("eu-west-1", "us-east-1", "ap-southeast-2", "eu-central-1"),
    "lang": ("rust", "go", "python", "typescript", "java", "elixir", "zig", "bash"),
    "script": ("scripts/release.sh", "tools/bump.sh", "the Makefile logic", "build.gradle"),
    "tool": ("pre-commit", "tox", "nox", "renovate", "sentry", "devcontainers", "bazel"),
    "role": ("devops engineer", "data scientist", "frontend intern", "staff engineer"),
    "fmt": ("ical", "yaml", "toml", "parquet", "csv", "xml", "avro"),
    "res": ("user", "order", "invoice", "event"),
    "team": ("analytics", "finance", "support", "growth"),
    "person": ("alice", "bob", "the contractor", "priya", "the new hire"),
    "host": ("the bastion host", "build-3", "the jump box"),
    "instance": ("g5.xlarge", "m7i.large", "p4d.24xlarge", "t3.micro"),
}

# ---------------------------------------------------------------------------- dressing

_PREFIXES = ("hey, ", "quick one: ", "ok, ", "next: ", "one more thing: ", "again: ", "so ")
_SUFFIXES = (
    " thanks", " pls", " asap", " when you get a chance", "!", " - thx",
    " (same as last time)", " and run the tests after", " please", " ty",
)  # fmt: skip


def _typo(text: str, r: random.Random) -> str:
    words = text.split(" ")
    candidates = [i for i, w in enumerate(words) if len(w) >= 4 and w.isalpha()]
    if not candidates:
        return text
    i = r.choice(candidates)
    w = words[i]
    j = r.randrange(1, len(w) - 1)
    op = r.randrange(3)
    if op == 0:  # swap two neighbours
        w = w[:j] + w[j + 1] + w[j] + w[j + 2 :]
    elif op == 1:  # drop a letter
        w = w[:j] + w[j + 1 :]
    else:  # double a letter
        w = w[:j] + w[j] + w[j:]
    words[i] = w
    return " ".join(words)


_TAILS = (
    " (ticket {proj}-{n})",
    ", it's for {proj}-{n}",
    ". cc @{who}",
    ", {who} asked for it",
    " - this is blocking the {v} release",
    ". context: branch {branch}",
    ". see #{n}",
    ", same as on {day}",
    " before the {h}:00 standup",
    ", {who} says it's urgent",
)
_TAIL_FILL: dict[str, tuple[str, ...]] = {
    "proj": ("ENG", "OPS", "PLAT", "DATA", "WEB", "SEC"),
    "who": ("maria", "tom", "li", "sam", "priya", "jonas", "the pm", "my lead"),
    "branch": tuple(BRANCHES),
    "day": ("monday", "tuesday", "wednesday", "thursday", "friday", "last week"),
}


def _tail(r: random.Random) -> str:
    fill = {k: r.choice(v) for k, v in _TAIL_FILL.items()}
    return r.choice(_TAILS).format(
        n=r.randint(10, 4999), v=f"{r.randint(1, 9)}.{r.randint(0, 20)}", h=r.randint(9, 11), **fill
    )


def _dress(text: str, r: random.Random) -> str:
    if r.random() < 0.3:
        tail = _tail(r)
        text = f"{text} {tail.lstrip(' .,-')}" if text.endswith("?") else text.rstrip(".") + tail
    x = r.random()
    if x < 0.12:
        text = r.choice(_PREFIXES) + text[0].lower() + text[1:]
    if r.random() < 0.15:
        text = text.rstrip(".?!") + r.choice(_SUFFIXES)
    if r.random() < 0.25:
        text = text.lower()
    if r.random() < 0.12:
        text = _typo(text, r)
    return text


def _render(kind: Kind, stable: Binding, r: random.Random) -> str:
    slots = stable
    if kind.volatile:
        fresh = kind.bind(r)
        slots = {**stable, **{k: fresh[k] for k in kind.volatile}}
    return _dress(r.choice(kind.frames).format(**slots), r)


def _key(kind: Kind, binding: Binding) -> tuple[str, ...]:
    return (kind.name, *(f"{k}={v}" for k, v in binding.items() if k not in kind.volatile))


def _one_off_text(r: random.Random) -> str:
    frame, needs = r.choice(_ONE_OFF_FRAMES)
    fills: list[str] = []
    for slot in needs:  # repeated slot types get distinct values ("convert csv to yaml")
        fills.append(r.choice([v for v in _ONE_OFF_FILL[slot] if v not in fills]))
    fills += ["", "", ""]
    return frame.format(
        a=fills[0],
        b=fills[1],
        c=fills[2],
        n=r.randint(2, 9),
        m=r.randint(1, 30),
        k=r.randint(1, 28),
        o1=r.randint(0, 255),
        o2=r.randint(1, 254),
    )


# ---------------------------------------------------------------------------- public API


def make_labelled(
    n: int,
    seed: int = 0,
    *,
    one_off_share: float = 0.15,
    mean_family_size: float = 20.0,
) -> list[tuple[str, str | None]]:
    """``n`` shuffled ``(text, family)`` pairs; ``family`` is ``None`` for one-offs.

    Family labels look like ``"fix-failing-test#12"`` (kind, then instance number).
    Deterministic for a given ``(n, seed, one_off_share, mean_family_size)``.
    """
    if n <= 0:
        return []
    r = random.Random(seed)
    n_one = round(n * one_off_share)
    n_fam = n - n_one
    if n_fam < 2:
        n_one, n_fam = n, 0
    n_families = max(1, min(n_fam // 2, round(n_fam / mean_family_size))) if n_fam else 0

    # Families: a kind bound to one object, unique across the corpus.
    used: set[tuple[str, ...]] = set()
    families: list[tuple[str, Kind, Binding]] = []
    per_kind: dict[str, int] = {}
    attempts = 0
    while len(families) < n_families and attempts < n_families * 50:
        attempts += 1
        kind = r.choice(KINDS)
        binding = kind.bind(r)
        key = _key(kind, binding)
        if key in used:
            continue
        used.add(key)
        idx = per_kind.get(kind.name, 0)
        per_kind[kind.name] = idx + 1
        families.append((f"{kind.name}#{idx}", kind, binding))
    n_families = len(families)

    # Heavy-tailed sizes: two each, the rest by a Zipf-like weight.
    sizes = [2] * n_families
    rest = n_fam - 2 * n_families
    if rest > 0 and n_families:
        weights = [1.0 / (i + 1) ** 0.75 for i in range(n_families)]
        for i in r.choices(range(n_families), weights=weights, k=rest):
            sizes[i] += 1
    elif rest < 0:  # too few rows for all families (cannot happen with the cap above)
        n_one += -rest

    out: list[tuple[str, str | None]] = []
    for (label, kind, binding), size in zip(families, sizes, strict=True):
        out.extend((_render(kind, binding, r), label) for _ in range(size))

    # One-offs, each asked once: a third are a family kind with an object no family (and no
    # other one-off) uses, the rest come from the one-off frames, never repeating a text.
    seen: set[str] = set()
    for _ in range(n_one):
        text = ""
        if r.random() < 0.35:
            for _try in range(20):
                kind = r.choice(KINDS)
                binding = kind.bind(r)
                key = _key(kind, binding)
                if key not in used:
                    used.add(key)
                    text = _render(kind, binding, r)
                    break
        for _try in range(20):
            if text:
                break
            candidate = _one_off_text(r)
            if candidate not in seen:
                seen.add(candidate)
                text = _dress(candidate, r)
        out.append((text or _dress(_one_off_text(r), r), None))

    r.shuffle(out)
    return out[:n]


def make_requests(n: int, seed: int = 0) -> list[str]:
    """``n`` request texts (the texts of :func:`make_labelled`)."""
    return [text for text, _ in make_labelled(n, seed)]


if __name__ == "__main__":  # pragma: no cover - manual peek
    import sys
    import time

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    t0 = time.perf_counter()
    rows = make_labelled(count, 0)
    dt = time.perf_counter() - t0
    for text, fam in rows[:20]:
        print(f"{fam or '-':28s} {text!r}")
    fams = {f for _, f in rows if f}
    print(f"{len(rows)} requests, {len(fams)} families, {dt * 1000:.1f} ms", file=sys.stderr)
