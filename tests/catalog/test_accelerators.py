"""The one vendor table (rules/catalog/data/accelerators.json) and the accelerator requests read from it:
every vendor the catalogs name has a record, every resource resolves to its vendor, and a vLLM container's
request of any family is counted in the devices it holds (TPU7x chips hold two) or left undecided."""

from __future__ import annotations

import os

import pytest
from repo_paths import FIXTURES
from shardwise.rules.adapters import load_inputs
from shardwise.rules.catalog import gpus
from shardwise.rules.catalog.accelerators import (
    accelerators,
    catalog_resources,
    devices_per_unit,
    family_known,
    group_vendor,
    is_extended_resource,
    non_nccl_vendors,
    resource_names,
    vendor_of,
    vendor_resources,
)
from shardwise.rules.checks.registry import ALL_RULES
from shardwise.rules.engine import run_rules

HERE = os.path.join(FIXTURES, "k8s", "accelerators")


def test_every_vendor_has_a_record_and_every_resource_resolves() -> None:
    families = [a.family for a in accelerators()]
    assert families == ["nvidia-gpu", "amd-gpu", "intel-gaudi", "intel-gpu", "google-tpu", "google-tpu-v7x",
                        "aws-neuron", "huawei-ascend", "rebellions-atom", "furiosa-rngd"]
    assert all(a.source.startswith("https://") for a in accelerators())
    vendors = {a.vendor for a in accelerators()}
    assert {g.vendor for g in gpus().values()} <= vendors
    for g in gpus().values():  # a catalog GPU's resource is its vendor's, from the table
        assert g.k8s_resource == catalog_resources()[g.vendor], g.name
    for name in resource_names():
        assert vendor_of(name) is not None and family_known(name) and is_extended_resource(name), name
    assert vendor_resources() == {
        "nvidia": "nvidia.com/gpu", "amd": "amd.com/gpu", "intel": "habana.ai/gaudi", "google": "google.com/tpu",
        "aws": "aws.amazon.com/neuroncore", "huawei": "huawei.com/Ascend910", "rebellions": "rebellions.ai/ATOM",
        "furiosa": "furiosa.ai/rngd"}
    assert catalog_resources()["aws"] == "aws.amazon.com/neuron"  # one catalog record is one Neuron device
    assert non_nccl_vendors() == frozenset({"intel", "google", "aws", "huawei", "rebellions", "furiosa"})


@pytest.mark.parametrize("resource,arch,span", [
    ("nvidia.com/gpu", None, (1, 1)),
    ("nvidia.com/mig-3g.40gb", None, (1, 1)),
    ("google.com/tpu", None, (1, 2)),
    ("google.com/tpu", "tpu-v7x", (2, 2)),
    ("google.com/tpu", "tpu-v6e", (1, 1)),
    ("aws.amazon.com/neuron", None, (2, 8)),
    ("aws.amazon.com/neuroncore", None, (1, 1)),
    ("huawei.com/Ascend910", None, (1, 2)),
    ("gpu.intel.com/i915", None, (1, 2)),
    ("furiosa.ai/rngd-2core.12gb", None, (1, 1)),
    ("example.com/npu", None, None),
])
def test_devices_per_unit(resource, arch, span) -> None:
    assert devices_per_unit(resource, arch) == span


@pytest.mark.parametrize("name,extended", [
    ("example.com/npu", True), ("vpc.amazonaws.com/efa", False), ("rdma/rdma_shared_device_a", False),
    ("hugepages-2Mi", False), ("cpu", False), ("openshift.io/mlnx_sriov", False), ("nvidia.com/gpu", True),
])
def test_is_extended_resource(name, extended) -> None:
    assert is_extended_resource(name) is extended


def _findings(name: str, codes: tuple[str, ...] = ("SW203", "SW204", "SW208", "SW401")):
    inv = load_inputs([os.path.join(HERE, name)])
    groups = {g.name: (group_vendor(g), g.accelerator_resource, g.gpus_per_pod if isinstance(g.gpus_per_pod, int)
                       else "unknown", g.pool.gpu.name if g.pool is not None and g.pool.gpu is not None else None)
              for g in inv.groups}
    found = [(f.code, f.level, f.subject.rsplit("/", 1)[-1], f.location.line, f.message)
             for f in run_rules(ALL_RULES, inv) if f.code in codes]
    return groups, found


def test_intel_xpu_requests_are_counted() -> None:
    """gpu.intel.com/i915 and gpu.intel.com/xe are accelerator requests: two cards for TP2 passes (each card
    is one or two XPU devices), one card for TP8 cannot start."""
    groups, found = _findings("intel-xpu.yaml")
    assert groups == {"llama-xpu": ("intel", "gpu.intel.com/i915", 2, None),
                      "qwen-xe": ("intel", "gpu.intel.com/xe", 1, None)}
    assert found == [
        ("SW203", "mandatory", "qwen-xe", 50, "Qwen/Qwen2.5-7B-Instruct has 28 attention heads, not "
         "divisible by tensor_parallel_size 8; the weights split at tensor_parallel_size 2 or 4"),
        ("SW204", "mandatory", "qwen-xe", 51, "the pod requests 1 gpu.intel.com/xe (1 to 2 devices) but "
         "TP8×PP1 starts 8 workers; vLLM cannot start with fewer GPUs than workers; write gpu.intel.com/xe: 8 "
         "under the vLLM container's resources.limits"),
    ]


@pytest.mark.parametrize("name,group", [("rebellions-atom.yaml", ("rebellions", "rebellions.ai/ATOM", 4, None)),
                                        ("furiosa-rngd.yaml", ("furiosa", "furiosa.ai/rngd", 1, None))])
def test_npus_whose_compiler_places_the_model_are_not_compared_with_the_layout(name, group) -> None:
    """vllm-rbln splits the model over ATOMs itself (VLLM_RBLN_TP_SIZE), Furiosa over the elements of a card:
    the layout flags do not count devices, so no GPU-request or /dev/shm finding."""
    groups, found = _findings(name)
    assert list(groups.values()) == [group]
    assert found == []


def test_tpu_v7x_chips_hold_two_devices() -> None:
    groups, found = _findings("tpu-v7x.yaml")
    assert groups == {"llama-tpu7x": ("google", "google.com/tpu", 4, "TPU-v7x"),
                      "llama-v6e": ("google", "google.com/tpu", 4, "TPU-v6e"),
                      "llama-tpu-any": ("google", "google.com/tpu", 4, None)}
    assert found == [
        ("SW204", "mandatory", "llama-v6e", 51, "the pod requests 4 google.com/tpu but TP8×PP1 starts 8 "
         "workers; vLLM cannot start with fewer TPUs than workers; write google.com/tpu: 8 under the vLLM container's resources.limits"),
        ("SW204", "advisory", "llama-tpu-any", 71, "cannot decide: how many vLLM devices 4 google.com/tpu "
         "hold is not known (one holds 1 to 2: a TPU7x (Ironwood) chip holds two devices, earlier generations "
         "one; a cloud.google.com/gke-tpu-accelerator node selector says which)"),
    ]


def test_an_unknown_family_is_undecided_and_a_mig_slice_is_one_gpu() -> None:
    groups, found = _findings("unknown-family.yaml")
    assert groups == {"qwen-npu": (None, "example.com/npu", "unknown", None),
                      "qwen-mig": ("nvidia", "nvidia.com/mig-3g.40gb", 1, None)}
    assert found == [
        ("SW204", "advisory", "qwen-npu", 17, "cannot decide: what example.com/npu holds is not known (an "
         "extended resource of an accelerator family the vendor table has no record of: add one to "
         "rules/catalog/data/accelerators.json)"),
        ("SW401", "mandatory", "qwen-mig", 34, "container `vllm` runs "
         "tensor_parallel_size 2 but mounts nothing at /dev/shm (the container runtime's default is 64 MiB); "
         "mount an emptyDir with medium: Memory there"),
        # mig20: not "write nvidia.com/mig-3g.40gb: 2": a CUDA process sees one MIG device however many it is given
        ("SW204", "mandatory", "qwen-mig", 37, "the pod's vLLM container gets MIG devices (nvidia.com/mig-3g.40gb) "
         "but TP2×PP1 starts 2 workers: a CUDA process enumerates a single MIG device however many the container is "
         "given (NVIDIA MIG user guide, \"CUDA Device Enumeration\"), so vLLM sees 1 GPU and refuses to start "
         "(\"World size (2) is larger than the number of available GPUs (1)\"); serve it at TP1 on one MIG slice "
         "that holds the model, or on 2 whole GPUs (nvidia.com/gpu on nodes without MIG)"),
    ]


def test_an_image_built_for_another_accelerator_is_a_finding() -> None:
    """SW209: the image's platform (its name's and tag's words, or a repository that is one platform's build)
    against the accelerator the pod requests; an image that says nothing is not judged, the CPU build on an
    accelerator request is advisory."""
    _, found = _findings("image-platforms.yaml", ("SW209",))
    lands = "the pod lands on a node whose accelerators this vLLM build cannot use and exits at start-up; use a vLLM image built for"
    instead = "or request the accelerator this image is built for"
    tpus = "Google TPUs v4 to v6e or Google TPU7x (Ironwood)"
    assert found == [
        ("SW209", "mandatory", "rocm-on-nvidia", 16, "image rocm/vllm:rocm6.4.1_vllm_0.10.1_20250909 is "
         f"built for AMD Instinct GPUs (ROCm) but the pod requests nvidia.com/gpu (NVIDIA GPUs); {lands} NVIDIA GPUs, {instead}"),
        ("SW209", "mandatory", "cuda-on-amd", 35, "image vllm/vllm-openai:v0.10.1 is built for NVIDIA GPUs "
         f"but the pod requests amd.com/gpu (AMD Instinct GPUs (ROCm)); {lands} AMD Instinct GPUs (ROCm), {instead}"),
        ("SW209", "mandatory", "gaudi-on-nvidia", 54, "image vault.habana.ai/gaudi-docker/1.22.0/ubuntu24.04/"
         "habanalabs/vllm-installer-2.7.1:latest is built for Intel Gaudi HPUs but the pod requests nvidia.com/gpu "
         f"(NVIDIA GPUs); {lands} NVIDIA GPUs, {instead}"),
        ("SW209", "mandatory", "tpu-on-nvidia", 73, f"image vllm/vllm-tpu:nightly is built for {tpus} but "
         f"the pod requests nvidia.com/gpu (NVIDIA GPUs); {lands} NVIDIA GPUs, {instead}"),
        ("SW209", "mandatory", "cuda-on-tpu", 92, "image docker.io/vllm/vllm-openai:latest is built for "
         f"NVIDIA GPUs but the pod requests google.com/tpu ({tpus}); {lands} {tpus}, {instead}"),
        ("SW209", "advisory", "cpu-on-nvidia", 111, "image public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo:"
         "v0.10.1 is vLLM's CPU build but the pod requests nvidia.com/gpu (NVIDIA GPUs); vLLM runs on the CPU and "
         "the accelerators stay reserved and idle"),
        ("SW209", "mandatory", "xpu-on-gaudi", 206, "image intel/vllm:0.10.2-xpu is built for Intel GPUs "
         "(XPU: Data Center GPU Max, Arc) but the pod requests habana.ai/gaudi (Intel Gaudi HPUs); " + lands
         + f" Intel Gaudi HPUs, {instead}"),
    ]  # rocm-on-amd, cuda-on-nvidia, custom-on-amd, ascend-on-ascend: no finding


def test_visible_devices_written_by_hand() -> None:
    """SW310 on CUDA_, HIP_, HABANA_ and NVIDIA_VISIBLE_DEVICES: exactly the container's devices (0..n-1, all,
    or the whole node's GPUs) is harmless; fewer visible devices than the layout needs cannot start, an
    `export` in the script included; a reordered list is advisory."""
    _, found = _findings("visible-devices.yaml", ("SW310",))
    fix = "it cannot start; remove {} from the container (the device plugin already chose its GPUs)"
    assert found == [
        ("SW310", "mandatory", "hip-short", 40, "container `vllm` sets "
         "HIP_VISIBLE_DEVICES='0', so vLLM sees 1 device but TP2×PP1 needs 2 in the pod: "
         + fix.format("HIP_VISIBLE_DEVICES")),
        ("SW310", "mandatory", "cuda-export-short", 58, "container `vllm` sets CUDA_VISIBLE_DEVICES='0' (in the container's script), so vLLM sees 1 device but "
         "TP2×PP1 needs 2 in the pod: " + fix.format("CUDA_VISIBLE_DEVICES")),
        ("SW310", "advisory", "cuda-reordered", 128, "container `vllm` sets CUDA_VISIBLE_DEVICES='1,0', where the "
         "device plugin already chose the GPUs"),
    ]  # cuda-exact, habana-all, nvidia-whole-node: no finding


def test_dynamic_resource_allocation_claims_are_the_pods_request() -> None:
    """A ResourceClaimTemplate (resource.k8s.io/v1 `exactly.count`, v1beta1 `count`) or ResourceClaim of the
    inputs gives the pod its devices; allocationMode All and a claim outside the inputs are undecided."""
    groups, found = _findings("dra-claims.yaml", ("SW204", "SW208"))
    assert groups == {"llama-dra-tp2": ("nvidia", "nvidia.com/gpu", 2, None),
                      "llama-dra-short": ("nvidia", "nvidia.com/gpu", 1, None),
                      "llama-dra-all": ("nvidia", "nvidia.com/gpu", "unknown", None),
                      "llama-dra-elsewhere": (None, None, "unknown", None)}
    assert found == [
        ("SW204", "mandatory", "llama-dra-short", 85, "the pod requests 1 nvidia.com/gpu but TP4×PP1 starts "
         "4 workers; vLLM cannot start with fewer GPUs than workers; make the resource claim `gpu` of the vLLM "
         "container allocate 4 devices"),
        ("SW204", "advisory", "llama-dra-all", 108, "cannot decide: the device count of container `vllm` is "
         "not known (the resource claim `node` asks for every device of its class (allocationMode All) or for a "
         "prioritized list, so the count depends on the node)"),
        ("SW204", "advisory", "llama-dra-elsewhere", 131, "cannot decide: the device count of container "
         "`vllm` is not known (they come from the resource claim `gpu` (dynamic resource allocation), and "
         "ResourceClaimTemplate `defined-in-another-repo` is not in the inputs; lint it together with the "
         "workload)"),
    ]


def test_dra_claims_of_every_served_api_version() -> None:
    """tpu19: a resource.k8s.io/v1alpha2 claim (classic DRA) in the same file was said to be "not in the inputs"
    (wangchen615/vLLM-DRA in the wide corpus): it names a ResourceClass and its driver's parameters, not devices,
    and the finding now says that version's devices are not read. v1alpha3 and v1beta2 are read by their shape."""
    groups, found = _findings("dra-versions.yaml", ("SW204", "SW208"))
    assert groups == {"llama-classic-claim": (None, None, "unknown", None),
                      "llama-classic-template": (None, None, "unknown", None),
                      "llama-alpha3-short": ("nvidia", "nvidia.com/gpu", 2, None),
                      "llama-beta2-tp4": ("nvidia", "nvidia.com/gpu", 4, None)}
    classic = ("(classic DRA, Kubernetes 1.26 to 1.30), where ResourceClass `gpu.nvidia.com`")
    unread = "the devices; shardwise reads the device requests of v1alpha3 and later, not these)"
    assert found == [
        ("SW204", "advisory", "llama-classic-claim", 81, "cannot decide: the device count of container `vllm` is not "
         "known (they come from the resource claim `gpu` (dynamic resource allocation), and ResourceClaim "
         f"`classic-gpus` is of resource.k8s.io/v1alpha2 {classic} and its driver's GpuClaimParameters `two-gpus` "
         f"decide {unread}"),
        ("SW204", "advisory", "llama-classic-template", 105, "cannot decide: the device count of container `vllm` is "
         "not known (they come from the resource claim `gpu` (dynamic resource allocation), and ResourceClaimTemplate "
         f"`classic-template` is of resource.k8s.io/v1alpha2 {classic} decides {unread}"),
        ("SW204", "mandatory", "llama-alpha3-short", 128, "the pod requests 2 nvidia.com/gpu but TP4×PP1 starts 4 "
         "workers; vLLM cannot start with fewer GPUs than workers; make the resource claim `gpus` of the vLLM "
         "container allocate 4 devices"),
    ]


def test_credential_placeholders_are_read_consistently() -> None:
    """SW308: <HF_TOKEN>, changeme and a $(VAR) reference are no credential; an envsubst placeholder ($VAR,
    ${VAR}) in a credential's plain value is advisory (the substituted token is stored in the object); a
    setting such as MAX_TOKENS is not a credential."""
    _, found = _findings("placeholders.yaml", ("SW308",))
    stored = ("in a plain value: the token substituted for it at deploy time is stored in the Deployment in plain "
              "text")
    assert found == [
        ("SW308", "advisory", "llama-placeholders", 18,
         f"container `vllm` sets HF_TOKEN to the placeholder ${{HF_TOKEN}} {stored}"),
        ("SW308", "advisory", "llama-placeholders", 20,
         f"container `vllm` sets HUGGING_FACE_HUB_TOKEN to the placeholder $HF_TOKEN {stored}"),
    ]


def test_neuron_pools_hold_cores_not_devices() -> None:
    """SW201 counts a node's vLLM devices: an inf2.8xlarge's one Inferentia2 device holds two NeuronCores, so
    TP2 stays on the node and TP16 spans nodes (advisory: TP across hosts is slower, not refused, on Neuron)."""
    _, found = _findings("neuron-cores.yaml", ("SW201",))
    assert found == [
        ("SW201", "advisory", "llama-inf2-tp16", 39, "pool `instance-type=inf2.8xlarge` has 1 "
         "aws.amazon.com/neuron per node (2 to 8 vLLM devices) but tensor_parallel_size is 16; the TP group would "
         "span at least 2 nodes"),
    ]


@pytest.mark.parametrize("image,families", [
    ("vllm/vllm-openai:v0.10.1", ["nvidia-gpu"]),
    ("vllm/vllm-openai:v0.9.0-rocm6.3", ["amd-gpu"]),  # a word of the tag wins over the repository's default
    ("docker.io/vllm/vllm-openai-rocm:v0.11.0", ["amd-gpu"]),
    ("rocm/vllm:rocm6.4.1_vllm_0.10.1_20250909", ["amd-gpu"]),
    ("intel/vllm:0.10.2-xpu", ["intel-gpu"]),
    ("opea/vllm-gaudi:1.2", ["intel-gaudi"]),
    ("public.ecr.aws/neuron/pytorch-inference-vllm-neuronx:0.9.1", ["aws-neuron"]),
    ("vllm/vllm-tpu:nightly", ["google-tpu", "google-tpu-v7x"]),
    ("quay.io/ascend/vllm-ascend:v0.10.0rc1", ["huawei-ascend"]),
    ("registry.example.com/team/vllm:0.10.1", []),
    ("cuda-team/vllm:latest", []),  # a registry organisation says nothing
    # review18: a mirror keeps the upstream path after its own prefix (an ECR pull-through cache of Docker Hub,
    # `ACCOUNT.dkr.ecr.REGION.amazonaws.com/PREFIX/vllm/vllm-openai`; a Harbor proxy project): the same build
    ("123456789012.dkr.ecr.us-east-1.amazonaws.com/docker-hub/vllm/vllm-openai:v0.11.0", ["nvidia-gpu"]),
    ("harbor.example.com/dockerhub-proxy/vllm/vllm-tpu:nightly", ["google-tpu", "google-tpu-v7x"]),
    ("harbor.example.com/dockerhub-proxy/rocm/vllm:latest", ["amd-gpu"]),
    ("registry.example.com/my-vllm/vllm-openai-fork:1", []),  # another repository's name, not a mirror's path
])
def test_image_families(image, families) -> None:
    from shardwise.rules.catalog.accelerators import image_families

    assert [a.family for a in image_families(image)] == families


def test_shared_gpu_vocabulary() -> None:
    """The NVIDIA record's sharing facts: time-sliced shares (nvidia.com/gpu.shared and renamed nvidia.com/gpu.*),
    MIG slices with the memory their profile names, the runtime classes and variable that show GPUs without a
    request, and the products whose memory is the system's."""
    from shardwise.rules.catalog.accelerators import (
        devices_per_unit,
        mig_profile,
        runtime_visibility,
        shared_resource,
        unified_memory_product,
        visible_devices_envs,
    )

    assert (shared_resource("nvidia.com/gpu.shared"), shared_resource("nvidia.com/gpu"),
            shared_resource("nvidia.com/mig-1g.10gb")) == (True, False, False)
    assert devices_per_unit("nvidia.com/gpu.shared") == (1, 1)
    assert (mig_profile("nvidia.com/mig-1g.10gb"), mig_profile("nvidia.com/mig-3g.40gb"),
            mig_profile("nvidia.com/gpu")) == ((1, 10), (3, 40), None)
    assert (runtime_visibility("nvidia"), runtime_visibility("runc"), runtime_visibility(None)) == (True, False, False)
    assert visible_devices_envs() == ("NVIDIA_VISIBLE_DEVICES",)
    assert [unified_memory_product(n) for n in ("NVIDIA-GB10", "NVIDIA Jetson AGX Orin", "Orin (nvgpu)",
                                                "NVIDIA-H100-80GB-HBM3", "NVIDIA-GH200-480GB")] == [
        True, True, True, False, False]


def test_mig_profiles_are_the_user_guides_eighths_of_each_gpu() -> None:
    """mig20: each catalog GPU's MIG profiles as the eighths of its memory a slice holds (NVIDIA MIG user guide,
    "Supported MIG Profiles"): on the seven-slice GPUs 1g the smallest (1/8), 1g of twice that memory and 2g 2/8, 3g
    and 4g half, 7g the whole GPU; on the RTX PRO 6000 Blackwell quarters (1g 1/4, 2g 1/2, 4g the whole); the name's
    rounded GB agrees with the share of the GPU's nominal GB (or of its memory as the runtime reports it); a profile
    the guide does not list for a GPU, or a GPU without a table, has no size."""
    from shardwise.rules.catalog.accelerators import mig_memory_eighths, mig_profile_name, mig_profiles_of

    tables = {name: mig_profiles_of(name) for name in gpus()}
    assert {name for name, profiles in tables.items() if profiles} == {
        "A100-40GB", "A100-PCIe-40GB", "A100-80GB", "A100-PCIe-80GB", "H100-SXM-80GB", "H100-PCIe-80GB",
        "H100-NVL-94GB", "H200-141GB", "B200", "RTX-PRO-6000-Blackwell", "H20", "GB200", "B300",
        "A30", "GH200", "GH200-144GB", "RTX-PRO-4500-Blackwell"}
    for name, profiles in tables.items():
        for profile in profiles:
            eighths = mig_memory_eighths(name, profile)
            assert eighths is not None
            compute, memory = profile.removesuffix("gb").split("g.")
            whole = "4" if name in ("RTX-PRO-6000-Blackwell", "A30") else "2" if name == "RTX-PRO-4500-Blackwell" else "7"
            shares = {"1": (2,), "2": (4,), "4": (8,)} if whole == "4" else {"1": (4,), "2": (8,)} if whole == "2" else {
                "1": (1, 2), "2": (2,), "3": (4,), "4": (4,), "7": (8,)}
            assert eighths in shares[compute], (name, profile)
            # the name's GB is the share of the nominal GB, or of what the runtime reports (B300: 7g.269gb of 288 GB)
            gpu = gpus()[name]
            assert min(abs(int(memory) - size * eighths / 8) for size in (gpu.memory_gb, gpu.memory_gib)) <= 1.5, (
                name, profile)
    assert [mig_memory_eighths("A100-80GB", p) for p in ("1g.10gb", "1g.20gb", "3g.40gb", "7g.80gb")] == [1, 2, 4, 8]
    assert mig_memory_eighths("A100-80GB", "1g.5gb") is None  # an A100 40GB profile
    assert mig_memory_eighths("A100-80GB", "2g.48gb") is None
    assert mig_memory_eighths("L4", "1g.10gb") is None
    assert mig_memory_eighths("RTX-PRO-6000-Blackwell", "2g.48gb") == 4
    # mig21: the A100 40GB's 1g.10gb is two of its eight memory slices (4 instances fill the GPU; mig-parted's
    # all-1g.10gb has 4 on an A100-40GB), not the 1/8 of the stored guide's memory column
    assert [mig_memory_eighths("A100-40GB", p) for p in ("1g.5gb", "1g.10gb", "2g.10gb", "7g.40gb")] == [1, 2, 2, 8]
    assert mig_profiles_of("H100-NVL-94GB") == ("1g.12gb", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb")
    # mig21: H20, GB200 (1g.24gb at an early driver, 1g.23gb later) and B300 from mig-parted's default configuration
    assert [mig_memory_eighths("H20", p) for p in ("1g.12gb", "2g.24gb", "3g.48gb", "7g.96gb")] == [1, 2, 4, 8]
    assert [mig_memory_eighths("GB200", p) for p in ("1g.23gb", "1g.24gb", "1g.47gb", "4g.93gb")] == [1, 1, 2, 4]
    assert [mig_memory_eighths("B300", p) for p in ("1g.34gb", "1g.67gb", "3g.135gb", "7g.269gb")] == [1, 2, 4, 8]
    assert mig_memory_eighths("H20-141GB", "1g.18gb") is None  # no table for the H20 141GB
    assert (mig_profile_name("nvidia.com/mig-1g.10gb.me"), mig_profile_name("nvidia.com/mig-3g.47gb"),
            mig_profile_name("nvidia.com/gpu")) == ("1g.10gb", "3g.47gb", None)


def test_a_mig_slice_listed_by_nvidia_smi_is_sized_with_the_listed_gib() -> None:
    """mig21: where a public nvidia-smi mig -lgip lists a profile's GPU instance memory, that is the slice's size: the
    share of the GPU's memory overstates some (H200 1g.35gb 34.95 against 32.25). Each listed row is a profile the
    table lists for the GPU, at most 0.1 GiB above its share (the whole H100: 79.25 listed, 79.19 reported) and at
    most 3.1 below it (GB200's 1g.24gb of an early driver: 20.00 against 23.04); a row no listing shows keeps the
    share."""
    from shardwise.rules.catalog.accelerators import _listed_gib as listed_table
    from shardwise.rules.catalog.accelerators import mig_listed_gib, mig_memory_eighths

    for name, rows in listed_table().items():
        for profile, gib in rows.items():
            eighths = mig_memory_eighths(name, profile)
            assert eighths is not None, (name, profile)
            share = gpus()[name].memory_gib * eighths / 8
            assert share - 3.1 <= gib <= share + 0.1, (name, profile, gib, share)
    assert (mig_listed_gib("H200-141GB", "1g.35gb"), mig_listed_gib("H100-NVL-94GB", "1g.24gb"),
            mig_listed_gib("RTX-PRO-6000-Blackwell", "2g.48gb")) == (32.25, 21.62, 46.5)
    assert mig_listed_gib("H100-NVL-94GB", "3g.47gb") is None  # not in the listing: the share (46.79 GiB)
    assert mig_listed_gib("A100-80GB", "1g.10gb") is None


def test_the_capacity_model_takes_the_listed_gib_of_a_mig_slice(tmp_path) -> None:
    """mig21: a pod on one nvidia.com/mig-1g.35gb of a p5en.48xlarge (H200) is sized on the 32.25 GiB nvidia-smi mig
    -lgip lists, not 2/8 of the H200's 139.81 (34.95); a 2g.35gb no listing shows, on the share."""
    from shardwise.rules.adapters import load_inputs
    from shardwise.rules.capacity.group import gpu_memory_gib

    def pod(name: str, profile: str) -> str:
        return (f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}, namespace: serving}}\nspec:\n"
                f"  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n    metadata: {{labels: {{app: {name}}}}}\n"
                "    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: p5en.48xlarge}\n      containers:\n"
                "        - name: vllm\n          image: vllm/vllm-openai:v0.11.0\n"
                "          args: [--model, Qwen/Qwen2.5-1.5B-Instruct]\n"
                f"          resources: {{limits: {{nvidia.com/mig-{profile}: 1}}}}\n")

    path = tmp_path / "mig.yaml"
    path.write_text(pod("listed", "1g.35gb") + "---\n" + pod("share", "2g.35gb"))
    inv = load_inputs([str(path)])
    assert {g.name: gpu_memory_gib(g) for g in inv.groups} == {"listed": 32.25, "share": 34.95}
