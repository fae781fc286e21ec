"""The shardwise Pulumi program: one ServingEnvironment per stack.

The stack config ``shardwise:environment`` (see ``stacks/Pulumi.<env>.yaml``) is loaded into the
typed :class:`~shardwise.rules.model.spec.EnvironmentSpec` — the same model ``shardwise lint stacks/``
reads — and handed to :class:`~shardwise.components.ServingEnvironment`, which validates it with the
shardwise rules before declaring anything. An environment with ``cluster.create`` creates its EKS
cluster and talks to it through the cluster's own provider; otherwise Kubernetes resources go to the
existing cluster the spec names, through a provider whose kubeconfig authenticates with
``aws eks get-token``.

``shardwise:hfToken`` (a secret: ``pulumi config set --secret shardwise:hfToken hf_…``) is the Hugging Face
token: the environment creates the Secret each workload's ``hf_token_secret`` names (key ``HF_TOKEN``) with
it. A gated model (meta-llama, Gemma) needs it, or ``shardwise:hfTokenSecretExists: true`` when that Secret
is made outside this program (External Secrets from AWS Secrets Manager); without either, preview fails.

``shardwise:apiKey`` (a secret) is vLLM's API key: the environment creates the Secret each workload's
``api_key_secret`` names with it (a workload behind an ALB router must name one); or
``shardwise:apiKeySecretExists: true`` when those Secrets are made outside this program.

``shardwise:validate`` (optional, default true) is the components' ``validate``: ``false`` turns their
own rule check off (the policy pack, ``pulumi preview --policy-pack``, still checks the resources), or
``{"SW104": "reason"}`` disables named rules.

With ``kubernetes:renderYamlToDirectory`` set, every Kubernetes provider of the program (the explicit
ones too, which Pulumi's own setting does not reach) writes the manifests it would apply to that
directory instead of talking to a cluster: its kubeconfig is dropped, which that mode refuses.

``shardwise:kubeconfig`` (optional: a kubeconfig's path or its contents) points every Kubernetes
provider of the program at the cluster it names instead of the one the EKS kubeconfig reaches: an
API server reached another way (a tunnel, a bastion's kubeconfig) or the local control plane the
cluster tests run (``tests/e2e/test_cluster.py``). The AWS resources are declared as before.

Exports: ``endpoints`` (in-cluster service URLs and router hostnames), ``pools`` (node pool names)
and ``sizing`` (per workload: weights and KV cache per GPU, KV tokens, concurrency, startup budget).
"""

from __future__ import annotations

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
from shardwise.components import ServingEnvironment, ServingEnvironmentArgs
from shardwise.components.cluster import kubeconfig
from shardwise.rules.adapters.stack import spec_from_value
from shardwise.rules.model.errors import InputError

config = pulumi.Config("shardwise")
try:
    spec = spec_from_value(config.require_object("environment"), "shardwise:environment")
except InputError as e:
    raise pulumi.RunError(f"stack config {e}") from None

aws_region = pulumi.Config("aws").get("region")
if aws_region and aws_region != spec.region:
    raise pulumi.RunError(f"aws:region is {aws_region} but shardwise:environment.region is {spec.region}")

render_dir = pulumi.Config("kubernetes").get("renderYamlToDirectory")
if render_dir:
    def _render(args: pulumi.ResourceTransformArgs) -> pulumi.ResourceTransformResult | None:
        if args.type_ != "pulumi:providers:kubernetes":
            return None
        props = {k: v for k, v in args.props.items() if k not in ("kubeconfig", "context", "cluster")}
        return pulumi.ResourceTransformResult({**props, "renderYamlToDirectory": render_dir}, args.opts)

    pulumi.runtime.register_resource_transform(_render)
elif config.get("kubeconfig"):
    _kubeconfig = config.get("kubeconfig")

    def _reach(args: pulumi.ResourceTransformArgs) -> pulumi.ResourceTransformResult | None:
        if args.type_ != "pulumi:providers:kubernetes":
            return None
        props = {k: v for k, v in args.props.items() if k not in ("context", "cluster")}
        return pulumi.ResourceTransformResult({**props, "kubeconfig": _kubeconfig}, args.opts)

    pulumi.runtime.register_resource_transform(_reach)

provider = None
if not spec.cluster.create:
    cluster = aws.eks.get_cluster_output(name=spec.cluster_name)
    provider = k8s.Provider(
        f"{spec.name}-eks",
        kubeconfig=pulumi.Output.all(cluster.endpoint, cluster.certificate_authorities[0].data).apply(
            lambda a: kubeconfig(spec.cluster_name, spec.region, a[0], a[1])
        ),
        enable_server_side_apply=True,
    )
validate = config.get_object("validate")
env = ServingEnvironment(spec.name, ServingEnvironmentArgs(
    spec=spec, k8s_provider=provider, validate=True if validate is None else validate,
    hf_token=config.get_secret("hfToken"), hf_token_secret_exists=config.get_bool("hfTokenSecretExists") or False,
    api_key=config.get_secret("apiKey"), api_key_secret_exists=config.get_bool("apiKeySecretExists") or False))

pulumi.export("endpoints", env.endpoints)
pulumi.export("pools", env.pool_names)
pulumi.export("sizing", env.sizing)
