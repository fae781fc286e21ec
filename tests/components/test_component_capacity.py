"""GPU capacity under Pulumi mocks, through the stacks' ``__main__.py``: node groups launch only in subnets whose
zone offers their instance type (``aws.ec2.getInstanceTypeOfferings``), and target On-Demand Capacity
Reservations and Capacity Blocks for ML from their launch templates."""

from __future__ import annotations

from typing import Any

import component_mocks
import pydantic
import pytest
from component_mocks import run_program
from shardwise.rules.model.spec import NodePoolSpec
from test_components import broken, refused, stack_run

NG, LT = "aws:eks/nodeGroup:NodeGroup", "aws:ec2/launchTemplate:LaunchTemplate"
SUBNETS = {z: f"prod-network-private-us-east-1{z}-id" for z in "abc"}


def test_prod_node_groups_launch_in_offered_zones_and_the_reserved_group_in_its_reservations_zone():
    run = stack_run("prod")
    assert run.one(NG, "prod-h100-node-group").inputs["subnetIds"] == [SUBNETS["a"], SUBNETS["b"], SUBNETS["c"]]
    efa = run.one(NG, "prod-h100-efa-node-group").inputs
    assert (efa["subnetIds"], efa["capacityType"], efa["instanceTypes"]) == ([SUBNETS["a"]], "ON_DEMAND",
                                                                             ["p5.48xlarge"])
    # the On-Demand Capacity Reservation, targeted from the launch template; no market type (that is Capacity Blocks')
    lt = run.one(LT, "prod-h100-efa-launch-template").inputs
    assert lt["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": "cr-0a1b2c3d4e5f60718"}}
    assert "instanceMarketOptions" not in lt and "instanceType" not in lt
    assert "capacityReservationSpecification" not in run.one(LT, "prod-h100-launch-template").inputs


def test_subnets_in_zones_without_the_instance_type_are_left_out(monkeypatch):
    monkeypatch.setitem(component_mocks.OFFERED_ZONES, "p5.48xlarge", ["us-east-1b", "us-east-1c", "us-east-1f"])

    def edit(env: dict[str, Any]) -> None:  # the EFA pool without its reservation: any offered zone
        del env["pools"][1]["capacity_reservation_id"], env["pools"][1]["availability_zone"]

    run = run_program(broken("prod", edit), stack="prod")
    assert run.one(NG, "prod-h100-node-group").inputs["subnetIds"] == [SUBNETS["b"], SUBNETS["c"]]
    assert run.one(NG, "prod-h100-efa-node-group").inputs["subnetIds"] == [SUBNETS["b"]]  # one zone: the first


def test_no_subnet_in_an_offering_zone_fails_at_preview_naming_the_zones(monkeypatch):
    monkeypatch.setitem(component_mocks.OFFERED_ZONES, "p5.4xlarge", ["us-east-1d", "us-east-1f"])
    err, _ = component_mocks.failing_program(broken("staging", lambda env: None))
    assert err.errors == [{"property_path": "subnet_ids", "reason": (
        "no subnet's zone offers p5.4xlarge for pool `h100-single`: the subnets are in us-east-1a, us-east-1b; "
        "p5.4xlarge is offered in us-east-1d, us-east-1f (ec2:DescribeInstanceTypeOfferings)")}]
    assert err.when == "when the subnets' zones were known"


def test_a_reservation_zone_without_a_subnet_fails_at_preview():
    def edit(env: dict[str, Any]) -> None:
        env["pools"][1]["availability_zone"] = "us-east-1d"  # offered, but the VPC has no subnet there

    err, _ = component_mocks.failing_program(broken("prod", edit))
    assert err.errors == [{"property_path": "pool.availability_zone", "reason": (
        "no subnet is in us-east-1d, the zone pool `h100-efa` names: the subnets are in us-east-1a, us-east-1b, "
        "us-east-1c; p5.48xlarge is offered in us-east-1a, us-east-1b, us-east-1c, us-east-1d "
        "(ec2:DescribeInstanceTypeOfferings)")}]


def test_a_capacity_block_is_targeted_with_its_market_type_and_instance_type():
    def edit(env: dict[str, Any]) -> None:
        env["pools"][1]["capacity_type"] = "capacity-block"

    run = run_program(broken("prod", edit), stack="prod")
    lt = run.one(LT, "prod-h100-efa-launch-template").inputs
    assert (lt["instanceMarketOptions"], lt["capacityReservationSpecification"], lt["instanceType"]) == (
        {"marketType": "capacity-block"}, {"capacityReservationTarget": {"capacityReservationId": "cr-0a1b2c3d4e5f60718"}},
        "p5.48xlarge")
    ng = run.one(NG, "prod-h100-efa-node-group").inputs
    assert (ng["capacityType"], ng.get("instanceTypes"), ng["subnetIds"]) == ("CAPACITY_BLOCK", None, [SUBNETS["a"]])


def test_a_reservation_needs_its_zone_and_spot_cannot_use_one():
    def edit(env: dict[str, Any]) -> None:
        del env["pools"][1]["availability_zone"]

    err, _ = refused(broken("prod", edit))
    assert err.errors == [{"property_path": "pools[1].availability_zone", "reason": (
        "pool `h100-efa` launches into reservation cr-0a1b2c3d4e5f60718, which holds instances in one zone: name "
        "that zone so the node group uses only its subnets (a launch in another zone finds no reserved capacity)")}]
    with pytest.raises(pydantic.ValidationError) as e:
        NodePoolSpec(name="x", instance_type="p5.48xlarge", capacity_type="spot", capacity_reservation_id="cr-0123456789abcdef0")
    assert e.value.errors()[0]["msg"] == (
        "Value error, a spot pool cannot launch into a capacity reservation: use capacity_type on-demand (an "
        "On-Demand Capacity Reservation) or capacity-block")
