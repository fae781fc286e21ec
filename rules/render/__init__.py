"""Pure rendering of what the components declare: Kubernetes manifests and AWS plans.

Nothing here imports Pulumi. The components (:mod:`shardwise.components`) turn these plain
dictionaries and plans into resources, and the stack adapter (:mod:`shardwise.rules.adapters.stack`)
turns the very same output into the domain model the rules read, so ``shardwise lint stacks/``
checks exactly what ``pulumi up`` would create.

One module per component of :mod:`shardwise.components`, each importing only the modules above it:

* :mod:`.common` — the labels and formatting every rendering shares;
* :mod:`.pod` — the escape hatches of a workload's pod;
* :mod:`.workload` — what the pods of the two workloads share (container, pod template, Service, monitor);
* :mod:`.nodepool` — GpuNodePool: node labels and taint, EFA, the launch template, Karpenter;
* :mod:`.vllm` — VllmService: the Deployment and its PodDisruptionBudget and autoscaler;
* :mod:`.multinode` — VllmMultiNode: the LeaderWorkerSet;
* :mod:`.network` — RuntimeNetwork: subnets, security groups, endpoints, NetworkPolicies;
* :mod:`.router` — InferenceRouter: the ALB Ingress or Gateway API routes;
* :mod:`.environment` — ServingEnvironment: every object of one environment, its namespaces, the
  prerequisites its cluster must run (what EksCluster installs) and its PriorityClasses.

Kubernetes objects are returned as dictionaries exactly as they would be written in a manifest.
Conventions and the numbers behind them:

* **Labels.** ``app.kubernetes.io/name: <name>`` and ``shardwise.dev/serving-group: <name>`` on
  every object and pod; pods select their node pool with ``shardwise.dev/pool: <pool>`` and
  tolerate the ``nvidia.com/gpu`` NoSchedule taint every GPU pool carries.
* **Annotations.** ``shardwise.dev/p95-context-tokens`` and ``shardwise.dev/target-concurrency`` (the
  declared load: p95 prompt+output length, sequences of the whole workload at once),
  ``shardwise.dev/base-model`` and ``shardwise.dev/ignore`` (``"SW106: reason; SW104: reason"``,
  from the spec's ``suppress`` entries).
* **Container.** ``command: [vllm, serve]``; ``args`` are :meth:`EngineArgsSpec.to_args` plus
  ``--host 0.0.0.0`` (never typed by hand). ``nvidia.com/gpu`` request = limit = tensor_parallel_size.
  Pods on EFA pools also request every ``vpc.amazonaws.com/efa`` device of the node, 5120Mi of
  ``hugepages-2Mi`` and 32000Mi of memory (no memory limit), as the AWS EKS EFA guide's pods do.
* **/dev/shm.** vLLM's Docker guide asks for ``--ipc=host`` or a larger ``--shm-size`` because
  PyTorch and NCCL exchange tensors between the TP worker processes through shared memory; a pod has
  neither, so a memory-backed ``emptyDir`` is mounted at ``/dev/shm``. Size:
  :func:`.workload.shm_size_gib` = max(4 GiB, 2 GiB × GPUs of the pod) (the LeaderWorkerSet vLLM example gives
  an 8-GPU pod 15 GiB). It counts against the node's memory, not the GPU's.
* **Model cache and probes.** The weights are kept where the spec's ``cache`` says
  (:mod:`shardwise.rules.capacity.cache`: an init container fills a local cache once, ``HF_HOME`` points at it,
  or vLLM streams from S3). ``startupProbe`` on ``/health`` every 10 s with ``failureThreshold`` =
  ceil(budget ÷ 10), the budget coming from the weights per pod and the cache's throughput;
  readiness and liveness on ``/health`` start only after the startup probe succeeds. ``HF_TOKEN``
  comes from the Secret ``hf_token_secret``, key ``HF_TOKEN``, marked optional.
* **Draining.** A preStop hook keeps a terminating pod serving until vLLM reports no running or
  waiting request (at most ``drain_seconds``); the grace period is ``drain_seconds`` + 30 s.
* **Escape hatches** from the spec's ``pod`` and ``engine.extra_args`` are merged in by
  :mod:`shardwise.rules.render.pod`, which refuses what the rules read.
* **Multi-node groups** launch natively (``--nnodes``/``--node-rank``/``--master-addr``) when the
  image's vLLM has it (:mod:`shardwise.rules.vllm.images`), else with Ray; EFA pods get
  ``FI_PROVIDER=efa`` (and ``FI_EFA_USE_DEVICE_RDMA=1`` on p4d/p5/p6). The LWS exclusive-topology
  annotation is set only when the spec names a topology label.
* **Images** are used as given; :func:`.workload.unpinned_image_reason` says why an image is not pinned (tag
  ``latest`` or no tag and no digest) and the components refuse such images.
"""
