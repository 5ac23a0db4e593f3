"""The optimizer's update rule: schedule, aggregate, select, reflect, gate and the trainer."""
