"""The managed skill's description is brought up to date in a file with Windows line endings too
(a checkout with ``core.autocrlf`` turns the committed skill's LF into CRLF)."""

from __future__ import annotations

from skillopt_sleep.skills.discover import frontmatter_fields
from skillopt_sleep.skills.route import managed_skill_text, with_new_topics


def test_a_crlf_managed_skill_names_tonights_tasks() -> None:
    text = (managed_skill_text(["summarise the paper"]) + "\n- learned line\n").replace(
        "\n", "\r\n"
    )
    later = with_new_topics(text, ["write the k8s manifest"])
    said = frontmatter_fields(later)["description"]
    assert said.endswith("resembles: write the k8s manifest; summarise the paper")
    assert later.count("\r\n") == text.count("\r\n") and "\n" not in later.replace("\r\n", "")
    assert with_new_topics(later, ["write the k8s manifest"]) == later


def test_a_topic_cut_at_a_space_leaves_no_space_before_its_separator() -> None:
    long = "make a bibtex entry for the TMLR paper on retrieval augmented generation - need it"
    said = frontmatter_fields(managed_skill_text([long, "summarise the paper"]))["description"]
    assert " ;" not in said and "- need; summarise the paper" in said


def test_a_request_holding_the_separator_stays_one_topic_night_after_night() -> None:
    """Topics are joined with "; ": a request holding one was read back as two topics, and the
    older topics were pushed out sooner (found by a review)."""
    from skillopt_sleep.skills.discover import frontmatter_fields
    from skillopt_sleep.skills.route import managed_skill_text, with_new_topics

    first = managed_skill_text(["bump the deps; then run the tests"])
    later = with_new_topics(first, ["write the release notes"])
    topics = frontmatter_fields(later)["description"].split("resembles: ", 1)[1].split("; ")
    assert topics == ["write the release notes", "bump the deps, then run the tests"]
