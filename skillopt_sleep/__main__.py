"""``python -m skillopt_sleep``: the CLI by module, which is how scheduled entries invoke it (an
absolute interpreter path needs no console script on PATH)."""

from skillopt_sleep.cli import main

if __name__ == "__main__":
    main()
