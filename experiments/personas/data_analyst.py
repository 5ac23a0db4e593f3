"""The data analyst: SQL, weekly reports, charts, growth figures, dataset cleaning."""

from __future__ import annotations

from experiments.personas.model import Family, Persona
from skillopt_sleep.records import Check

PERSONA = Persona(
    name="data-analyst",
    summary="a product analyst: SQL queries, weekly reports, charts, growth numbers, cleaning",
    families=(
        Family(
            "sql-query",
            "analysis",
            (
                "write a SQL query for {metric} by {dim}",
                "SQL for {metric} broken down by {dim} please",
                "query {metric} per {dim}",
                "I need the {metric} by {dim} query",
            ),
            Check("contains", "date filter", "a date filter"),
            (
                "no, you forgot - include a date filter",
                "still wrong, mention the date filter in the where clause",
            ),
        ),
        Family(
            "weekly-report",
            "dashboards",
            (
                "draft the weekly {metric} report",
                "write this week's {metric} report",
                "weekly report on {metric} please",
            ),
            Check("section_present", "Methodology", "a Methodology section"),
            (
                "no, add a Methodology section",
                "you forgot to add a Methodology section",
            ),
        ),
        Family(
            "chart",
            "dashboards",
            (
                "make a chart of {metric} over time",
                "plot {metric} over the last quarter",
                "chart {metric} by week",
            ),
            Check("not_contains", "pie chart", "no pie charts"),
            (
                "no, stop using a pie chart",
                "wrong - avoid the pie chart for time series",
            ),
        ),
        Family(
            "growth-number",
            "analysis",
            (
                "what was the {metric} growth last quarter",
                "how much did {metric} grow quarter over quarter",
                "give me the quarterly growth in {metric}",
            ),
            Check("regex", r"FY\d+Q\d+", "the fiscal quarter label, like FY26Q3"),
            (
                "wrong format - label the quarter like FY26Q3",
                "no, name the quarter as FY25Q4",
            ),
        ),
        Family(
            "dataset-cleaning",
            "analysis",
            (
                "clean the {dataset} dataset",
                "tidy up the {dataset} data before the analysis",
                "clean {dataset}.csv for me",
            ),
            Check("tool_called", "pandas", "use pandas"),
            (
                "no, use the pandas tool for this",
                "that's wrong, run the pandas tool instead",
            ),
            weight=0.8,
        ),
    ),
    one_offs=(
        "what's a good sample size for an A/B test",
        "explain p-values to the marketing team",
        "fix the broken join in revenue.sql",
        "rename the churn dashboard",
        "export the cohort table to csv",
    ),
    slots={
        "metric": ("revenue", "signups", "churn", "active users", "retention"),
        "dim": ("country", "plan", "channel", "device"),
        "dataset": ("events", "orders", "survey", "sessions"),
    },
    harnesses={"claude": 1.0},
)
