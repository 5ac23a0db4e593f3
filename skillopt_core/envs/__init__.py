"""Environments: where items come from and how a rollout is scored."""

from skillopt_core.envs.base import ENVIRONMENTS, Environment, canonical_split, create_environment

__all__ = ["ENVIRONMENTS", "Environment", "canonical_split", "create_environment"]
