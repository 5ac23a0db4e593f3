"""The researcher: reads papers, writes related work and results, answers reviewers."""

from __future__ import annotations

from experiments.personas.model import Family, Persona
from skillopt_sleep.records import Check

PERSONA = Persona(
    name="researcher",
    summary="an ML researcher: paper summaries, related work, bibtex, results write-ups, reviewer replies",
    families=(
        Family(
            "paper-summary",
            "reading",
            (
                "summarize arXiv paper {arxiv} for the reading group",
                "give me a summary of arXiv {arxiv}",
                "Summarize the arXiv paper {arxiv}, the reading group meets tomorrow",
                "short summary of arXiv {arxiv} for the reading group please",
                "what does arXiv {arxiv} do? summarize it",
                "summarise arXiv {arxiv} for me",
            ),
            Check(
                "regex",
                r"(?m)^\s*arXiv:\d+\.\d+\s*$",
                "the arXiv id on its own line, like arXiv:2510.04618",
            ),
            (
                "wrong format - put the arXiv id on its own line like arXiv:{arxiv}",
                "no, the arXiv id goes on its own line, formatted as arXiv:{arxiv}",
            ),
            weight=1.3,
        ),
        Family(
            "related-work",
            "thesis",
            (
                "find related work on {topic} for the thesis",
                "collect related work about {topic}",
                "I need related work on {topic} for chapter 2",
                "related work search: {topic}",
                "list the key related work on {topic}",
            ),
            Check("contains", "publication year", "each paper's publication year"),
            (
                "you forgot to mention the publication year of each paper",
                "no - include the publication year for every paper",
            ),
        ),
        Family(
            "bibtex",
            "thesis",
            (
                "make a bibtex entry for the {venue} paper on {topic}",
                "bibtex for the {topic} paper from {venue} please",
                "I need a bibtex citation for the {venue} {topic} paper",
                "write the bibtex entry for that {topic} paper ({venue})",
            ),
            Check("not_contains", "misc entries", "no @misc entries"),
            (
                "no, stop adding misc entries, journal papers are articles",
                "wrong again - avoid misc entries, that venue is a journal",
            ),
        ),
        Family(
            "results-writeup",
            "thesis",
            (
                "write up the results of experiment run {run}",
                "draft the results write-up for run {run}",
                "write up what run {run} showed for the lab meeting",
                "results write-up for experiment {run} please",
            ),
            Check("section_present", "Limitations", "a Limitations section"),
            (
                "no, you forgot to add a Limitations section",
                "still no good - add a Limitations section",
            ),
        ),
        Family(
            "reviewer-reply",
            "thesis",
            (
                "draft a reply to reviewer {reviewer} about {topic}",
                "write the response to reviewer {reviewer}'s comments on {topic}",
                "answer reviewer {reviewer}, they asked about {topic}",
                "reply to reviewer {reviewer} regarding {topic}",
            ),
            Check("max_chars", "1050", "under 150 words"),
            (
                "no, too long - keep it under 150 words",
                "no, way too long, keep it under 150 words",
            ),
            weight=0.9,
        ),
    ),
    one_offs=(
        "convert this results table to latex",
        "what's the difference between a t-test and a wilcoxon test",
        "fix the typo in the abstract of the {venue} draft",
        "rename figure 3 to figure 4 in the draft",
        "how do I cite a dataset in APA style",
        "make the plot font bigger in figures.py",
        "explain what a learning rate warmup is",
        "check the grammar of my acknowledgements",
    ),
    slots={
        "arxiv": (
            "2605.23904",
            "2510.04618",
            "2401.12345",
            "2312.00752",
            "2406.01234",
            "2502.11111",
            "2409.20001",
            "2311.07001",
        ),
        "topic": (
            "skill documents for agents",
            "prompt optimization",
            "test-time learning",
            "retrieval augmented generation",
            "curriculum learning",
            "model merging",
        ),
        "venue": ("NeurIPS", "ICML", "TMLR", "JMLR", "ACL"),
        "run": ("12", "13", "7b", "21", "lr-sweep-3", "ablation-4"),
        "reviewer": ("1", "2", "3", "B", "C"),
    },
    harnesses={"claude": 0.6, "codex": 0.4},
)
