"""The devops engineer: manifests, incident write-ups, Dockerfiles, runbooks, alert rules."""

from __future__ import annotations

from experiments.personas.model import Family, Persona
from skillopt_sleep.records import Check

PERSONA = Persona(
    name="devops",
    summary="a platform engineer: k8s manifests, incident summaries, Dockerfiles, runbooks, alerts",
    families=(
        Family(
            "k8s-manifest",
            "infra",
            (
                "write a deployment manifest for the {service} service",
                "k8s deployment yaml for {service} please",
                "create the kubernetes deployment for {service}",
                "I need a deployment manifest for {service}",
            ),
            Check("contains", "resource limits", "cpu/memory resource limits"),
            (
                "no, you forgot - include the resource limits",
                "still wrong, mention the resource limits for the containers",
            ),
        ),
        Family(
            "incident-summary",
            "infra",
            (
                "summarize the {service} incident from {date}",
                "write the incident summary for the {service} outage on {date}",
                "incident write-up: {service} went down {date}",
                "draft the postmortem summary for {service} ({date})",
            ),
            Check("section_present", "Timeline", "a Timeline section"),
            (
                "no, add a Timeline section",
                "you forgot to add a Timeline section again",
            ),
        ),
        Family(
            "dockerfile",
            "deploy",
            (
                "write a Dockerfile for the {service} service",
                "Dockerfile for {service} please",
                "containerize {service} with a Dockerfile",
                "make a Dockerfile for {service}",
            ),
            Check("not_contains", "latest tag", "pinned base images"),
            (
                "no, stop using the latest tag, pin versions",
                "wrong - avoid the latest tag on base images",
            ),
        ),
        Family(
            "runbook",
            "deploy",
            (
                "write a runbook for restarting {service}",
                "runbook: how to restart {service} safely",
                "document how to restart the {service} pods",
            ),
            Check("tool_called", "kubectl", "use kubectl"),
            (
                "no, use the kubectl tool before answering",
                "that's wrong, run the kubectl tool first",
            ),
            weight=0.8,
        ),
        Family(
            "alert-rule",
            "infra",
            (
                "write the alert rule for {service} latency",
                "add a latency alert for {service}",
                "prometheus alert for {service} p99 latency please",
            ),
            Check("regex", r"\d+ms", "the threshold in milliseconds, like 250ms"),
            (
                "wrong format - write the threshold like 250ms",
                "no, give the threshold as 300ms",
            ),
            weight=0.8,
        ),
    ),
    one_offs=(
        "why is the staging cluster out of disk",
        "rotate the TLS certificate for the ingress",
        "what's the difference between a deployment and a statefulset",
        "bump terraform to 1.9",
        "clean up old docker images on the build box",
    ),
    slots={
        "service": ("payments", "auth", "search", "billing", "gateway", "notifications"),
        "date": ("Monday", "March 3", "last night", "the 14th", "Friday"),
    },
    harnesses={"claude": 0.5, "codex": 0.25, "copilot": 0.25},
)
