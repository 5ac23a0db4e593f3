"""The technical writer: blog posts, social posts, headlines, option docs, copy edits."""

from __future__ import annotations

from experiments.personas.model import Family, Persona
from skillopt_sleep.records import Check

PERSONA = Persona(
    name="writer",
    summary="a developer-relations writer: blog posts, social posts, headlines, docs, edits",
    families=(
        Family(
            "blog-post",
            "blog",
            (
                "draft a blog post about {topic}",
                "write a blog post on {topic}",
                "blog post about {topic} please",
                "I need a blog draft about {topic}",
            ),
            Check("section_present", "Summary", "a Summary section"),
            (
                "no, add a Summary section at the end",
                "you forgot to add a Summary section",
            ),
        ),
        Family(
            "social-post",
            "blog",
            (
                "write a social post announcing {topic}",
                "announce {topic} on social",
                "social media post for the {topic} launch",
            ),
            Check("max_chars", "280", "under 40 words"),
            (
                "no, too long - keep it under 40 words",
                "no, too long, keep it under 40 words",
            ),
        ),
        Family(
            "headlines",
            "blog",
            (
                "suggest headlines for the {topic} piece",
                "give me headline ideas for the {topic} article",
                "headlines for {topic} please",
            ),
            Check("not_contains", "exclamation marks", "no exclamation marks"),
            (
                "no, stop using exclamation marks",
                "wrong - avoid exclamation marks in headlines",
            ),
        ),
        Family(
            "option-docs",
            "docs",
            (
                "write docs for the {option} option",
                "document the {option} setting",
                "docs for the new {option} flag please",
            ),
            Check("contains", "default", "the option's default value"),
            (
                "you forgot to mention the default value",
                "no - include the default value of the option",
            ),
        ),
        Family(
            "copy-edit",
            "docs",
            (
                "edit this paragraph about {topic} for clarity",
                "copy-edit the {topic} section",
                "tighten up the wording of the {topic} intro",
            ),
            Check("contains", "Oxford comma", "the Oxford comma"),
            (
                "no, use the Oxford comma",
                "still wrong - use the Oxford comma in lists",
            ),
            weight=0.8,
        ),
    ),
    one_offs=(
        "what's a good title for my talk",
        "translate this sentence into German",
        "fix the broken link in the README",
        "suggest a color for the banner",
        "how long should a newsletter be",
    ),
    slots={
        "topic": ("the 2.0 release", "our new CLI", "plugin support", "faster builds", "dark mode"),
        "option": ("--timeout", "retries", "cache_dir", "--verbose", "log_level"),
    },
    harnesses={"claude": 0.7, "copilot": 0.3},
)
