"""The capacity model against what vLLM itself logged at start-up, in public GitHub threads and repositories.

The cases are in ``data/startup_logs.json`` (read by ``startup_logs.py``): one start-up log each (the URL says
where), the release that printed it, the model, the GPU as the runtime reported it, and the settings. vLLM's
figures are facts; the model must reproduce:

* the verdict: the server started, or refused to (the central estimate, and never the opposite verdict
  beyond the error band);
* the KV budget ("Available KV cache memory", or V0's "the rest of the memory reserved for KV Cache")
  within max(0.6 GiB, 4 % of the usable memory);
* the weights ("Model loading took" / "Loading model weights took"), within their asymmetric band: vLLM loads
  at most 2 % + 0.3 GiB more than the estimate, and less by at most 0.5 % + 0.05 GiB for an unquantised checkpoint
  it loads whole (else 2 % + 0.3 GiB; ``sizing.weights_band``);
* the token capacity ("GPU KV cache size" / "# GPU blocks" × 16) within the same tolerance in tokens.

``benchmarks/bench_startup_logs.py`` prints the same cases as a scoreboard by release line, with tokens held to 5 %.

Logs left out, and why: vllm#21348 (Qwen3-235B-FP8 on 4×H100) ran with an LMCache connector whose own GPU
buffers vLLM counted; vllm PR #10511's figures are from a development build of the profiler (non-torch
memory of 1.79 GiB on one GPU) that the merged code no longer measures; vllm PR #12569 (Llama-3.1-70B w8a8,
1,381 blocks) is a V1 development build of 0.7; kvcached#210 (Llama-3.1-70B at TP8 on 8×A100-40GB, 0.11.0) runs
kvcached's patched allocator; the 32B and 72B runs of dennislee22/vLLM-benchmarking's README give the KV budget
without the utilization or the context they ran at; vllm#20305, vllm#23192 and vllm-omni#276 ("Free memory on
device ... is less than desired") were refused because other processes held the GPU; pytorch#175666 is a
regression of a PyTorch release candidate; vllm#34076 runs pipeline stages on two different GPUs. The
llm-d-benchmark rows ran `vllm/vllm-openai:latest` on 2026-01-27: their profile's sampler peak (PyTorch's sort, 39 B
per logit) places them in the 0.12-0.16 line, scored as 0.14.1; its gpt-oss-120b row says 0.9 but its logged terms
add up to 0.95 of the GPU, which is what it is scored at.

Searched for and left out in the round that looked for L4, L40S, A10G, MI300X and 0.20-0.27 logs (issue 28):
LMCache#1739 (Qwen3-14B on A100-40GB, 0.10.2: 6.51 GiB, 42,656 tokens) runs an LMCache connector and does not
give its utilization; vllm#6746 (Llama-3.1-405B-FP8 on 8×H100, 0.5.3: 57.75 GiB of weights, 79,392 tokens) does
not give its command; vllm#25350 (fp8 KV cache, 10.55 GiB) names neither GPU nor model; gpustack#1800
(Qwen2.5-VL-7B on an RTX 3090, V0: 2,400 tokens) ran with gpustack's own engine arguments, not quoted;
kaito#2132 (Mistral-Small-4-119B on Standard_NC80adis_H100_v5: 17.39 GiB), vllm#53961 (DeepSeek-V4-Pro at TP8 on
MI300X, dummy weights), myoceane.fr's Gemma-4-26B-A4B on an A100 (48.5 GiB of weights, 21.5 GiB at 0.9) and
kenrollins/gemma-forge's Gemma-4-31B NVFP4 on 2×L4 serve families the catalog lacks; the L4 (g6.2xlarge) runs of
icebreaker70/vllm-quantization-hands-on-benchmark that enginrect/llmso compares with are not in the stored copies;
the V0 sample in oracle-samples/oci-data-science-ai-samples `ai-quick-actions/troubleshooting-tips.md`
(Llama-3.1-8B, 22.07 GiB total, 0.90: 4.60 GiB, 37,696 tokens < 131,072) names neither the shape nor the
container's vLLM release.
The second round (issue 28) added L4, A10G, L40S, A100, H100, H200, RTX PRO 6000 and MI300X rows (16 logs, 0.6.3-0.26.1) and left out:
amdgoose/arno_vllm_chat `vllm_server.log` (0.17.0 on a ROCm GPU it does not name), jayashan10/Deepseek-qwen-deployment
and DaisukeTakai/eval_dataset (the GPU is not named), kumaxxp/duo-talk (the GPU is only implied by other files),
Tennsoku/k8s-llm-serving-public (DGX Spark GB10, unified memory, not in the catalog), zjpzhao/vllm-qwen3vl-cu118-t4
(a custom 0.11 build for T4 serving a pooling model), gnosia93/vlm-on-eks (8 x L40S with a video model the catalog
lacks), the failed experiment of graz-dev/vllm-benchmark (its other settings were drawn by the optimizer and are not
given), LzyFischer/MemSuit and ljg6861/anton_new, KevinHuang8/Augment_QA, giyushino/ModelMerging, jyngjeon/multiagentsdebate, emocat17/GraphRAG and
ShanghaoLi0913/memory-aware_RLHF (the GPU that ran is not named), leadawon/structrag (4 of 8 RTX A5000 named in a later note, not in the 0.6.3 log), and the MI300X logs of
vllm-project/recipes PR #273 beyond its token count (no breakdown).
Open misses (``open_miss`` in the data file, expected to fail here): the four 0.27.1 RTX 4090 runs of enginrect/llmso
at ``--max-model-len 8192`` (Qwen2.5-7B-Instruct in BF16, GPTQ-Int4 and FP8-dynamic, Qwen3-14B-FP8), 0.93-1.87 GiB less
KV cache than Model Runner V2's terms give, where the same repository's Qwen2.5-0.5B breakdown log and Qwen3-8B-FP8
run at 2k agree with them. The 2 x T4 run of 0.22.0 is no longer one: custom all-reduce runs on that PCIe pair
without the 2 GiB the NVLink logs of 0.19 count (``sizing.tp_buffers_counted``). The 0.22.0 A10G run of
graz-dev/vllm-benchmark is within tolerance but 11.5 % over its token count: a strict open miss of its own below, as
are three more runs within tolerance and more than 5 % off their token counts (the 0.10.0 TP8 H100 run of
Qwen3-235B-A22B-FP8, the 0.11.0 L4 run and the 0.10.0 RTX 3090 run; docs/capacity-model.md, "Calibration"). The
0.13.0 TP4 run of emocat17/GraphRAG, an open miss while its GPU was taken for an A100-80GB, ran on A800s (its default
token budget says so) and is sized within 0.2 %.

Set 11 (``data/startup_logs_11.json``, issue 28: PCIe-only tensor parallelism and the V0 engine on MI300X) left out:
gnosia93/vlm-distillation (the InternVL3-78B run on 8 x L40S at 0.6.6.post1 that gnosia93/vlm-on-eks also holds:
a vision tower the catalog lacks), vllm PR #10909 (Bamba, a hybrid the catalog lacks), vllm#7553 (0.5.4, Yi-1.5-34B
on 4 x RTX 4090: no figures), the kaitchup benchmark of Llama-3.1-8B quantisations on 0.5.4 (the GPU is not
named), nalanzeyu/vllm-gfx906 on a Radeon Pro VII (a fork, a part the catalog lacks), the InstructLab run of
granite-3.1-8b at TP4 (the log stops before the profile), the Qwen2.5-Math-1.5B runs on an L40 and an A10 of a CS336
assignment (not found in the stored repositories) and the MI300X TunableOp runs of AUGMXNT/MI300-testing (one tuned
its GEMMs inside the profile: 10,207 blocks against 78,921). Open misses of the set: the three TP8 Llama-3.1-8B runs
on MI300X (7.1 - 9.0 GiB a GPU more kept beside the cache than shardwise charges, growing with the group). The TP4
Qwen3-VL-30B-A3B run on RTX 3090s was one (its weights 0.24 GiB under what vLLM loaded, +11.3 % of a 2.31 GiB cache)
until tokens29 gave the catalog's Qwen3-VL mixtures of experts the multimodal RoPE their config.json has (+3.1 %).

Set 12 (``data/startup_logs_12.json``, logs12: vLLM 0.29.0 on an L40S and four L4s, akamaslabs/vllm-benchmark) left
out: the study 30 probes that change only a kernel (attention or linear backend) or add MTP, the tp1-block96 smoke
configuration (the tp1-auto engine at another block size), study 16's TP1/DP2 refusal (its figures are only in a
report.html) and, from other repositories, logs whose GPU is named nowhere (a 0.22.0 Qwen2.5-7B run at 0.95 on a
44.5 GiB card, a 0.19.2rc1 Qwen3.6-35B-A3B-NVFP4 refusal on a 32 GiB card under WSL, a 0.8.5.post1
R1-Distill-Qwen-14B run). Open misses of the set: gpt-oss-20b at TP1 (+43 % tokens, no budget logged) and at DP4
(-6.7 %), and the TP2/DP2 layout that ran out of memory warming up its sampler (the margin has no term for DP and EP
communicators). The Gemma 4 row at block size 48 is sized within 1 % since hybridkv: from 0.25 a sliding-window
layer keeps the backend's 16-token kernel block whatever --block-size says, and its page is padded to the full
layers' 48-token page.

Set 13 (``data/startup_logs_13.json``, logs13: repositories no earlier set used) holds three logs: gpt-oss-20b (an
abliterated fine-tune) on a GB10 in NVIDIA's 26.01 vLLM container (0.13.0), Qwen2.5-Coder-14B-Instruct on one L40S
(0.11.2) and Qwen3-4B on one H100 (0.10.2; the GPU by its 79.18 GiB and the repository's Slurm partition). Left out,
the GPU named nowhere in the log or its repository: JerryMouseZ/vlm_qwen3 (Qwen3-30B-A3B at TP4, 0.9.1: no KV figure
logged), GiakyLi/llm-app-framework (Qwen3-4B-Instruct-2507, 0.10.0), zyfjrx/train_sft (Qwen3-14B, 0.10.0, an 80 GB
part), hanzhizhz/prograph (a local Qwen3-30B-A3B W4A16 at TP2, 0.13.0), passionworkeer/tengxun_open (Qwen3.5-9B,
0.18.0), parallelworks/activate-rag-vllm (gpt-oss-120b at TP2, 0.15.1), Captain-Jay29/vllm (TinyLlama with
bitsandbytes, 0.8.3), marissazli/AttnPIProbe (Mistral-7B, 0.5.5) and 0324wy/MapCoder (Llama-3.1-8B at 0.6.4.post1 on
44.42 GiB parts: an L40S or an L40); the GPU only in later files or at odds with the log:
Kiloma-Advanced-Solutions/PLG_AI (gemma-3-12b-it-qat-autoawq at TP2, 0.8.4; a later README names dual RTX 4090s and an
RTX 5090) and daxdelvira/distributed_agent_gc (Qwen2.5-14B at TP2, 0.7.2, on 39.50 GiB parts where the repository's
batch script asks for L40S); models the catalog lacks: mrpid12org/imageworks (Qwen2-VL-2B, LLaVA),
WaroonRagwongsiri/SuperAi-SS6-Level2-Hack4 (typhoon-ocr-7b), DoanNgocCuong/fintech (dots.ocr, a development build);
refused because other processes held the GPU: ShensiCeciliaLi/TradingAgents (Qwen3-Embedding-4B, 0.11.0) and
vatsasree/MedQA_Agent (Qwen3.5-122B-A10B at TP4, 0.23.0). Open miss of the set: the GB10 row (1.75 GiB more kept
beside the cache than modelled: set 10's unified-memory class; ``open_miss`` says what was read).

Set 14 (``data/startup_logs_14.json``, logs14: vLLM 0.27.1, kubesimplify/website) holds seven runs on RTX PRO 6000
Blackwell Server Edition cards joined across CPU sockets (no NVLink): Qwen3-32B in BF16 at TP1 (refused), TP2 and PP2 at
0.426, and Qwen3-235B-A22B-Instruct-2507-FP8 at TP2 (refused while loading), TP4, TP4 with expert parallelism and PP4.
Left out: the 8 x L40S Qwen3-235B-A22B-FP8 notes (0.10.2, TP4/TP8 with expert parallelism) and a Qwen3-Next-80B-A3B run
at TP2 on two H200s (0.10.2, custom all-reduce on): stored, but the index names neither file's repository, so neither has
a URL at a commit; a GLM-5.1-FP8 run at TP8 on H200s (a bisect build, 0.19.1rc1.dev329); DGX Spark (GB10) logs (Arm
learning path's Mistral-7B GPTQ, a Qwen3.8-27B session: set 10's open class, and a model the catalog lacks); LLaVA-1.6 on
an H100 (0.10.2: not in the catalog); an A100 Llama-3.1-8B note (the release and the model implied only); a Qwen2.5-7B
fine-tune ('/workspace/base', 0.24.0, GPU not named); opt-1.3b on 2 x L4 (0.22.1, a course page, no catalog shape);
noonghunna/club-3090's bench reports (Qwen3.6/3.8 builds with Genesis patches on nightly images); the Qwen2.5-72B TP4
L40S lesson (set 11's), the Llama-3-70B AWQ TP2 L40S lab and the gpt-oss-120b refusals on one H100 (vllm#23278,
vllm#27508), all cited already; er0080/vllm-benchmarking's 0.25.1 fixtures (CPU backend); refusals because other processes
held the GPU. Open miss of the set: the TP1 Qwen3-32B refusal (1.74 GiB more kept beside the cache than Model Runner V2's
terms: the class of the 0.27.1 RTX 4090 rows). Its PP4 row is within the band since logs14 profiles every stage whose
profile can differ (a middle stage's 24 layers bound the cache; before, 671,168 tokens, outside the band) but still
11.2 % over its token count: the quoted 55.70 and 26.84 GiB are a middle stage's (586,328 tokens at 49,152 bytes a
token), so an end stage (23 layers) held fewer blocks, about 6.6 GiB kept beside its 54.51 GiB of weights where
shardwise charges 1.55 (the same box's TP4 run logs 1.70 GiB of non-torch memory against 0.22 charged); not explained.

Set 15 (``data/startup_logs_15.json``, logs15: repositories no earlier set used) holds eleven runs: MiniMax-M2.7 FP8 at
TP4 on four A100-SXM4-80GB (a 0.22.1rc1.dev16 nightly wheel, scored as 0.22.1; tokens only) and Qwen3.6-27B in BF16 on
one (0.20.1) from genn888/MASS_delivery's setup guides; granite-4.0-micro with on-the-fly FP8 through the offline LLM
class on one L40S (0.11.0) from IBM/CodeEngine's serverless-fleet tutorial; and eight Seed-OSS-36B-Instruct launches
of xuchu0726/ai-inference-service on RunPod A100-SXM4-80GB pods (TP2 at 0.11.2: max_num_batched_tokens 4,096, 8,192
and 32,768 at 65,536 tokens, a 131,072-token eager profile with one sequence, an FP32 baseline at 0.98; TP4 at 0.23.0:
131,072 and 524,288 tokens at 0.95, the last with an FP8 KV cache). Left out: the Qwen3-Next-80B-A3B TP2 run on two
H200s (0.10.2) and a Llama-4-Scout TP8 run on H200s (0.12.0, a chat export quoting only 'Model loading took 27.8072
GiB'): stored, but the index names neither file's repository; the same MASS guide's H100 run at 262,144 tokens
(quoted only as '~345k tokens'); its Qwen2.5-Coder-32B and MiniMax-M3 guides (no figures; a model the catalog lacks);
xuchu0726's W8A8, bitsandbytes, INC and AWQ launches (local re-quantised checkpoints whose quantisation configs were
not read); a two-engine docker compose sharing one L40S (0.16.1rc1 dev build, re-uploads the catalog lacks); a
MiniMax-M3 evaluation on a patched 0.23.1rc1.dev550 build; cssnoeasy/a100-vllm-benchmark-blog (A100 PCIe TP2, no
figures quoted) and systalyze/vllm-benchmarks (a fork image, no start-up figures); the LLaVA-1.6 H100 log and the DGX
Spark Mistral GPTQ learning path, left out by set 14 already. The MiniMax-M2.7 TP4 run, an open miss 5.6 % under its
token count until tokens30 read its ``cudagraph_mode`` PIECEWISE, is 3.2 % under (below). The three TP4 0.23.0 rows are within the band and 2.6 - 3.3 % under
their token counts: vLLM kept 2.53, 2.57 and 2.92 GiB (FP8 cache) beside the 17.12 GiB of weights and the cache,
shardwise keeps 4.50 (its weights 0.16 under).

Set 16 (``data/startup_logs_16.json``, logs16: repositories no earlier set used) holds nine H100 runs from three
repositories: aihpi/litellm-k8s (nvidia/Llama-3.3-70B-Instruct-FP8 on one H100 with an FP8 KV cache, refused at
131,072 tokens and started at 32,000, ``latest-cu130`` pulled when 0.15.1 was the newest release; gpt-oss-120b on one
H100 at 0.27.1) and MG-Cafe/TCPXO-Enabled-A3-Mega-H100-Benchmarks (GKE A3 Mega at 0.19.0: GLM-5.1 quantised to FP8
while loading at TP8 x PP2 over two nodes, Meta-Llama-3-8B at TP16 over the same nodes and on one GPU) and, committed after the first six were scored and
before these three were, t0mdicks0n/llm-self-hosting (Kimi-K2.5 at TP8 on a GCP a3-highgpu-8g, a pip-installed 0.15.0:
refused at 0.9, refused at 0.95 and 16,384 tokens, started at 0.95 and 8,192). Left out: a DeepSeek-R1 TP8 run on eight H200s (V0, March 2025: 21.43 GiB, 18,418
blocks), a Qwen3-Next-80B-A3B TP2 run on two H200s (0.11.0) and the GLM-4.6 TP8 EP experiments on eight H200s (0.12.0,
concurrency figures only): stored, but the index names no repository; the Llama-4-Scout TP8 H200 notes and the LLaVA-1.6
H100 log, left out by sets 14 and 15; AlexGS74/glm47-nvfp4-sm120 (a patched 0.15.1 weight loader, a community NVFP4
checkpoint whose quantisation config was not read); a MiniMax-M2.1 FP8/INT4 mix on two GH200s (a nightly build and a
per-layer mixture the catalog lacks); the DeepSeek-V3.2 TP8 P/D log (a P2P NCCL connector) and the MiniMax-M3 and
DGX Spark logs of 0.23.1rc1 development builds; Qwen2.5-7B logs at 0.18.0 and 0.22.0 whose GPU is named nowhere;
llm-d/llm-d-benchmark's H100 table (its repository is set 10's). Open misses of the set (``open_miss`` in the data
file): gpt-oss-120b's weights at 0.27.1 (61.1 GiB logged, 64.32 modelled: about the second copy of the MXFP4 scales
charged on Hopper) and Kimi-K2.5's refusal at 0.95 and 16,384 tokens (started inside the band: vLLM kept about 1.22
GiB more than modelled in all three Kimi rows, 0.19 of it in the weights, once --mm-encoder-tp-mode data keeps the
vision tower whole on every rank). GLM-5.1 at TP8 x PP2 (+11.9 % tokens: 960,384 against 858,048) is inside its band
since verdicts28 counts the 16-bit copy MLA keeps of its FP8 ``kv_b_proj`` (0.13 GiB a GPU); about 3 GiB beside the
cache on the tightest stage is still not attributed (no budget or weights line is logged).
The Llama-3.3-70B FP8 run is within the band and 11.8 % over its token count (below).

Set 17 (``data/startup_logs_17.json``, logs17: repositories no earlier set used) holds seven rows from three
repositories: datawhalechina/self-llm (Qwen3.5-4B on one RTX 4090 D, a pip-installed 0.23.0), kenrollins/gemma-forge
(Gemma 4 31B-IT on a Dell XR7620's PCIe L4s at 0.19.0: bf16 at TP4 and ModelOpt NVFP4 at TP2 started; NVFP4 on one L4
and bf16 at TP2 and PP2 refused at load) and hawkoli1987/mech-util (GLM-4.6 at TP8 with expert parallelism on 8 x
H200, 0.12.0, the experiments set 16 left out for want of a repository: the code index names it when asked for the
file's heading). Left out: the same tutorial's MiniCPM5-1B run (0.23.0 on the RTX 4090 D: 2.09 GiB, 11.54 GiB, 504,192
tokens; a family the catalog lacks, no config.json read), gemma-forge's Nemotron-3-Nano NVFP4 PP2 engine (not in the
catalog) and its Gemma 4 E2B/E4B engines (no figures); logs the index stores without a repository: a Qwen3-Next-80B-A3B
TP2 run on two H200s (0.10.2, set 14's), Qwen3.6-35B-A3B-NVFP4 under WSL at 0.20.0 (five runs, the GPU named nowhere),
Gemma-4-31B-it at 0.94 on a Kaggle GPU (0.23.0, the GPU named nowhere), Qwen2.5-VL-7B refused at 0.22 (0.23.0, the GPU
named nowhere); noonghunna/club-3090's bench reports (Genesis-patched nightly builds, Qwen3.8, which the catalog lacks),
mitchross/talos-argocd-proxmox, TUM-DSE/doctor-cluster-config and syv-ai/qwen38-27b-rtx3090 (Qwen3.8-27B: no
config.json found to teach it from), an H200 DeepSeek-V3.2 bisect build, a GB10 dev build of Qwen3.5-35B-A3B-FP8 and
guqiong96/Lvllm (a fork). Open misses of the set (strict xfails below, all within the band): the Gemma 4 31B bf16 TP4
run (+8.4 % tokens, 0.34 GiB kept beside the cache not attributed) and the NVFP4 TP2 run (+32 % tokens: the journal's
approximate '~16.3 GiB' of weights against 15.44 modelled). GLM-4.6 at TP8 on H200 was one (+11.1 %) until tokmulti10
read the repository's history: the '61.44x' it scored is not the command's (the same command's probe, experiment 5B,
logged 66.00-66.99x, and four one-setting variants agree), so the row is that probe (+2.1 %).

Set 18 (``data/startup_logs_18.json``, logs18: vLLM's own GitHub issues) holds four rows from three threads: vllm#33155
(gpt-oss-120b on one H100 at 0.97: 0.11.2 started at 87,040 tokens and 100 sequences, 0.14.1 ran out of memory at
5,120 tokens and one sequence), vllm#40691 (Qwen3.5-27B, 0.19.0, an H20, 290,864 tokens) and vllm#26612
(Qwen3-VL-30B-A3B on an A800 at 0.11.0, refused at 13.69 GiB). All four are open misses (blind: verdicts 2/4, KV 0/1,
tokens 0/1, weights 1/1): the two gpt-oss-120b rows are the margin class another branch (margin28) is changing, the other
two are ambiguous in the source (``open_miss`` says how the thread's own figures show it). Left out: ragflow#9856
(Qwen3-30B-A3B-Thinking-2507-FP8 at TP2, 0.10.1.1: 26.13 GiB, 570,848 tokens; the GPU is named nowhere, a 48 GB Ampere
card by the Marlin FP8 warning), xorbitsai/inference#4926 (Qwen3-VL-8B refused at 6.94 GiB: no GPU, xinference's own
arguments), vllm#28228 (Kimi-Linear-48B-A3B AWQ on 2 x RTX 3090: a re-quantised checkpoint whose quantisation config
was not read), kubernetes-sigs/gateway-api-inference-extension#550 (Llama-2-7b-hf on an H100 at 0.8.1 with four LoRA
slots: LoRA has no setting here), vllm PR #29335 and PR #20707 (development builds; the GPU not named), vllm#17469 (an A10,
not in the catalog), vllm#31529 (no figures), LMCache#1435 and kvcached#210 (connectors), noonghunna/club-3090's bench
issues (Genesis-patched builds), and myoceane.fr's Gemma-4-26B-A4B run on an A100 (the catalog has the family now; the
page is set 1's and was not reused here). blog.huikang.dev's gpt-oss-120b log (0.11.2, a Kaggle GPU) quotes no figures in
the stored copy.

Set 19 (``data/startup_logs_19.json``, logs19: issues of vLLM and of projects that run it) holds five rows from four
threads: vllm#21348 (Qwen3-235B-A22B-FP8 at TP4 on H100 with the LMCache connector, 8.11 GiB and 178,880 tokens),
LMCache#1739 (Qwen3-14B on an A100-40GB, vLLM 0.10.2, 6.51 GiB and 42,656 tokens), vllm#32105 (GLM-4.7-FP8 at PP8 on
A100-80GB, a 0.15.0 nightly, refused at 28.57 GiB) and vllm-project/recipes#12 (Qwen3-Coder-480B-A35B-FP8 at DP8 with
expert parallelism on the 141 GB H20, 0.10.1.dev101, refused at 48.66 and 55.65 GiB). Blind: verdicts 4/5, KV 4/5,
tokens 0/2. The GLM-4.7 refusal is a class now modelled (0.14.0-0.16.x check one request against every pipeline
stage's layers, ``Behaviour.pp_check_whole_model``); the two token misses stay open (``open_miss``). Left out: vllm#39734
and the robotmunki.com annotated log (Gemma 4 31B, a development build / no release named), vllm#46462 (Qwen3.6-35B-A3B-FP8
with DFlash: no figures in the stored excerpt), vllm#43308 and vllm#39133 (re-quantised Gemma 4 checkpoints, approximate
figures), vllm#34076 (two different GPUs in one pipeline), vllm#51041 and vllm#44376 (DeepSeek-V4, not in the catalog),
vllm#17431 and vllm#18124 (0.8 V1 refusals at 0.3-0.4 of a shared GPU: other processes' memory is not in the thread),
eugr/spark-vllm-docker#396 (a re-quantised MiniMax-M2.7 AWQ on a development build), gpustack/runner#251 (model and GPU
not in the stored excerpt), LMCache PR #2522 (dummy weights, GPU not named), the jishuzhan.net Qwen3-0.6B-FP8 sweep (GPU
not named), and the club-3090 / Lvllm / vllm-backport threads (patched builds and forks).

Set 20 (``data/startup_logs_20.json``, logs20: repositories that commit vLLM's start-up log, favouring 0.22 - 0.30)
holds six rows from three repositories: justuswilhelm/pufferfish (gemma-4-E4B-it on a passed-through RTX 3090 Ti,
the 0.22.1 official image), vireshkoli/LLM-Inference-Optimization (Llama-3.1-8B-Instruct in BF16 and RedHatAI's GPTQ
w4a16 on an A40, v0.26.0 pinned by digest, each with 0.26's "Actual usage" breakdown) and
Freshair129/Private-Runtime-Platform (a Qwen3-4B-Instruct-2507-shaped Typhoon 2.5 on an RTX 5060 Ti under Docker on
Windows: 0.29.0's official image at 0.70, and 0.30.0 installed by Xinference at 0.70 and 0.9). Blind: verdicts 6/6,
KV 4/6, tokens 3/6, weights 6/6; every token miss is a budget error. The two RTX 5060 Ti misses (1.23 GiB kept beside
the cache, both starts compiling cold) are strict open misses against the warm 0.30.0 run on the same card, which
shardwise reproduces: the pair names a cold ``torch.compile`` as the class, which stays unmodelled (``open_miss``;
``test_the_rtx_5060_ti_rows_differ_by_the_compile_cache_not_by_the_release``). The gemma-4-E4B row is inside its
band and 7.1 % over its token count (``test_the_0_22_1_gemma4_e4b_run_is_within_5_percent_of_its_token_count``).
Left out: the other figures of those repositories' files (0.31.0's EAGLE-3 runs on an RTX 5070 Ti, whose flags are in
a compose file not read; a Nemotron Nano 9B v2 run on an RTX 5090 at 0.30.0 with no KV line); a Korean llm-d lab's
Qwen3-0.6B on an RTX 3050 at 0.26.0 (2.14 GiB, 20,032 tokens; its repository could not be identified), a Korean WSL2
lab's Qwen2.5-0.5B at 0.27.1 on an RTX 4090 and a Qwen2.5-0.5B offline run at 0.26.0 on a 15.55 GiB GPU (repositories
or GPUs not identified); GLM-5.2 at TP4 with expert parallelism (0.26.0, a quantised checkpoint whose config was not
read), Qwen3.8 and DeepSeek-V4-Flash logs (not in the catalog), an LFM2.5-1.2B online-INT4 run (not in the catalog), a
Qwen 9B run on an RTX 5090 beside a resident reranker (another process on the GPU), and club-3090 / Genesis threads
(patched builds).

Set 21 (``data/startup_logs_21.json``, logs21: recent releases on PCIe multi-GPU replicas) holds seven rows, first two
from two sources: vllm PR #54479 (the stock 0.28.0 "unpatched warm" reference cell of a cold/warm compile study: Qwen3-32B-AWQ
at TP2 on two RTX 4090s, 0.85, mbt 5120 / mns 72: 10.38 GiB, 5,315 blocks) and mitchross/talos-argocd-proxmox PR #1995
(Qwen3.8-27B-FP8 at TP2 on two RTX 3090s in a Kubernetes Deployment, 0.27.1, 131,072 tokens, fp8 KV: 4.99 GiB,
302,921 tokens). Blind: verdicts 2/2, KV 0/2, tokens 0/2 (no weights logged); both budget errors (the layout gives
85,023 and 303,325 tokens from the logged budgets as scored blind; 85,025 and 302,749 after). The harness gave a row without ``nvlink_domain`` an unknown domain,
which ``sizing.tp_buffers_counted`` charges as NVLink-joined: 2.0 GiB of communication buffers on two GeForce cards that
have no NVLink. It now takes the catalog's domain for the GPU, as ``lint`` and ``plan`` do (``startup_logs.nvlink_domain``;
no earlier row changes: every earlier row without the field is an H100 or A800 whose catalog domain is 8). The RTX 4090
row is then +0.23 GiB and +2.2 % tokens; the RTX 3090 row +1.04 GiB and +20.7 %, a strict open miss (``open_miss``).
Two more rows were added after that and scored blind on their own: akamaslabs/vllm-benchmark study 30's K-fp8 and
M-mtp2 probes (Gemma-4-26B-A4B FP8 on one L40S at 0.29.0, fp8 KV; and a separate assistant drafter with two speculative
tokens), which set 12 left out as kernel or MTP probes: verdicts 2/2, KV 2/2, tokens 1/2, weights 2/2. The drafter row is
12.1 % over its token count inside the band, a budget miss: a drafter checkpoint (``--spec-model``) has no setting, so its
weights and CUDA graphs are not charged (a strict 5 % open miss).
A third batch, committed before it was scored: akamaslabs/vllm-benchmark study 28's A-auto and K-fi-fp8 kernel probes
(Qwen3-8B-FP8 on one 1g.16gb MIG slice of an RTX PRO 4500 Blackwell, 15.66 GiB, 0.29.0, 0.9, 4,096 tokens, compiling
cold; KV auto, and fp8 KV with FlashInfer): verdicts 2/2, KV 0/2, tokens 0/2, weights 2/2. Both are budget misses
(+1.23 and +1.49 GiB) whose layout, weights and cold-compile peak are right: the log's 10.16 GiB of weights and
non-torch memory hold 1.28 GiB of non-torch memory against the 0.12 charged, not attributed (strict open misses). Its
K-fa-fp8 probe did not start (FLASH_ATTN refuses fp8 KV on sm_120: a backend check, not memory) and is not a row.
Last, one row committed before it was scored: study 31's smoke start (the study 30 deployment at 16,384 tokens, text
only, compiling cold): verdict, KV, tokens and weights right (13.46 GiB and 170,727 tokens against 13.47 and 170,836).
Searched for and left out: vllm#54383 itself (the boots' figures are not in the stored excerpt) and PR #54479's patched
cells (a development build); vllm#35854 (Qwen3.5-35B-A3B on four 22 GB RTX 2080 Tis, a 0.16.1rc1 development build, the
error not in the excerpt); vllm#41695 (Qwen3-Coder-30B-A3B-FP8 on an RTX 5090, refused, the release not given);
vllm#54122 and the MiaAI-Lab / Qwen3.8-Flash-Next threads (a custom ``qwen38-flash-next`` image, models the catalog
lacks); vllm#51454 and vllm#51041 (DeepSeek-V4, not in the catalog); vllm#49878 (Gemma 4 at 0.25.1 / 0.26 with
``--kv-cache-memory-bytes``, the checkpoint and GPU not in the excerpt); discuss.vllm.ai thread 2674 (Gemma-4-31B-IT-NVFP4
out of memory on two RTX 5070 Tis at 0.21.0: where it ran out, and whether a display held memory, is not in the excerpt);
mitchross PRs #2010, #2017, #2273 (an AutoRound W4A16 checkpoint with an INT8 LM head, MTP, no figures quoted for the FP8
switch) and shrinedogg/biggs.dog PR #481 (no figures in the excerpt); club-3090's bench issues and PRs, including the
2 x RTX 5090 and 2 x RTX 3090 Qwen3.8-27B-FP8 ones (Genesis-patched composes); the 1Cat-vLLM fork's PR #518; a 0.23.0
Qwen2.5-VL-7B refusal at 0.22 and several 0.2x logs whose repository the code index does not name; llm-d's 2 x L40S
KV-offload reports (the start-up logs are compressed, ``.zst``); and the llm-d-benchmark H100 profiling notes (set 1's).

Set 22 (``data/startup_logs_22.json``, logs22: found by exact-string search of committed logs and reports, not issue
threads) holds thirteen rows from two repositories of one author: xbill9/gemma4-dev (Gemma 4 E2B on one Tesla T4: the
0.28.0 image on AWS g4dn, 0.29.0 from PyPI on GCE in bf16 and Google's QAT W4A16 export) and xbill9/sagemaker-gemma (the
AWS SageMaker vLLM 0.30.0 container on one L4 and one L40S: E2B and E4B in bf16 and QAT, a 26B-A4B W4A16 repack, 31B QAT
and NVIDIA's 31B NVFP4 on Marlin; a 31B QAT refusal at 0.9 on the L4, torch out of memory at load, and a marginal 31B QAT
start at 0.97, text only). Blind: verdicts 13/13, KV 0/1, tokens 3/12, weights 8/12. Classes found and fixed from
vLLM's source: the per-layer embedding table of the E-series stays 16-bit in a quantised checkpoint (``weights.
per_layer_embedding_params``; E2B QAT 3.88 -> 7.02 GiB), and from 0.14.0 ``--kv-cache-dtype auto`` takes a ModelOpt
checkpoint's FP8 KV format (``sizing.checkpoint_kv_dtype``; the NVFP4 row 10,724 -> 21,453 tokens against 21,870); the
QAT E2B / E4B shapes carry an untied LM head, read from the export's header after scoring. After: verdicts 13/13, KV
1/1, tokens 6/12, weights 9/12; no earlier row changes. Open: ``gemma4-cold-peak``, ``compile-state-unread``,
``gemma4-e-weights``, ``text-only-warm-restart`` (startup_logs.MISS_CAUSES) and the NVFP4-on-Marlin weights. A second
batch, committed before it was scored: SuperSumanov/aira-dojo-noise-robust's Qwen3.8-27B in 4 bits on RTX 3090s at 0.29.0
(cyankiwi's AWQ-BF16-INT4 at TP2 over PCIe at 262,144 and 131,072 tokens, its AWQ-INT4 on one card, eager; fp8_e5m2 KV,
text only): blind verdicts 3/3, KV 0/3, tokens 0/3, weights 2/3, all three in ``qwen38-awq-3090`` (the first layout
misses of the sets: the hybrid layout 1.8 - 4.4 % over the logged budgets). Searched for
and left out: the same author's MI300X runs (``vllm/vllm-openai-rocm:nightly`` and 0.31.1rc1 development builds), its
Gemma 4 12B runs (the catalog lacks the 12B), its g5g (Graviton + T4G) runs (a 0.27.2rc1 source build); a French
Ollama-to-vLLM migration report with a Qwen2.5-7B-Instruct-AWQ refusal at 0.35 and starts at 0.45 / 0.60 on an L4 at
0.28.0 beside a resident Ollama (its repository is not named by the index); a 0.31.0 Qwen2.5-7B-AWQ smoke log on an
H200 (synapse_bench tests: repository and memory utilisation not identified); the dual-Qwen3.5 compose on one L40S
(two engines on one GPU, a 0.16.1rc1 development build); and the issue threads the search returned, all cited or left
out by earlier sets (vllm#21348, #27508, #26612, #28228, ragflow#9856, vllm PR #29335, syv-ai/qwen38-27b-rtx3090).

Set 23 (``data/startup_logs_23.json``, logs13) holds 29 rows, each written from its source before shardwise was scored
on it: Xecutive-Development-LLC/ai-infra-lab (one RTX 5090 at 0.29.0 from PyPI: Qwen3-4B-Instruct-2507 BF16 and FP8,
Qwen3.5-4B and Phi-4-mini-instruct BF16 and RedHatAI FP8-dynamic, gemma-4-E4B-it and granite-4.0-h-micro, at 32K and
128K, and a refused 262K start), aws-samples/sample-claude-code-multi-model's per-model guides (Qwen3.6-35B-A3B at 262K
and Qwen3-Coder-Next on 4 x L40S TP4, GLM-5.2-FP8 on 8 x H200 TP8 at 300K and a refusal at 1M), vllm-project/recipes'
Kimi-K2-Think page (TP8, 0.11.0) and Qwen3.8-27B page (Inferact's NVFP4 on one RTX 5090 at a 0.26.1 pre-release: four
eager starts at 32K, two refusals in CUDA graph capture). Blind and after: verdicts 28/29, KV 4/5, tokens 10/22 (no
weights logged; no capacity term changed). hybrid13 then modelled 0.28+'s default prefix caching for hybrid models
(Mamba cache mode ``align``: two state pages a request per state group), which explained the ``hybrid-state-0.29``
class: tokens 13/22, set 22's two AWQ-BF16-INT4 TP2 rows moving out on their budget. Open: the RTX 5090 rows
(``sm120-cold-nontorch``, ``hybrid-fp8-unread``), Qwen3-Coder-Next's Mamba-block refusal (134 blocks logged, 501 modelled) and GLM-5.2's budget
at 1M (``open_miss``; closed in kvtol1 by the indexer's decode scores in the CUDA graph estimate). Two rows of vllm-project/recipes PR #12 first entered here were set 19's already and were dropped;
entered as 96 GB H20s they missed their budgets by 39 - 41 GiB, which set 19's 141 GB H20 does not (their two budgets
differ by 6.99 GiB for 0.05 of utilisation). Searched for and left out: Kimi-K2.7-Code and DeepSeek-V4 (not in the
catalog), a Korean L40S / 4 x L4 Qwen3-14B study and an 8 x L40S Qwen3-235B-FP8 log whose repositories the index does not
name, the Qwen3.8 page's 2 x RTX 5090 table (its counts mix MTP and non-MTP starts), and club-3090 bench threads
(patched builds).

Set 24 (``data/startup_logs_24.json``, logs14) holds eight rows, each written from its source before shardwise was scored
on it: ddiiwoong/newblog's capstone post (the Korean L40S / 4 x L4 Qwen3-14B study set 23 could not name: vLLM 0.28.0,
Qwen3-14B BF16 and Qwen/Qwen3-14B-AWQ on one L40S, the AWQ checkpoint tuned to 1,024 tokens at 0.95, on one L4, on two
separate L4s, at TP2 and at PP2 over PCIe) and vllm#16712 (Llama-4-Scout BF16 at TP2 on 2 x H100 NVL at 0.99, a 0.8.4
master build, out of memory while loading). Blind: verdicts 8/8, KV 6/7, tokens 6/7, weights 2/2. The one miss is the
L4 pair: the same default AWQ start logged 9.10 GiB on one run and 10.33 on another, which shardwise's cold and warm
compile states reproduce (9.21 and 10.40 GiB); the post shows no compile lines, so the 10.33 row is a strict open miss
of the class ``compile-state-by-run`` and no capacity term changed. A second batch, written before it was scored:
cssnoeasy/a100-vllm-benchmark-blog's Qwen3-32B capacity table (0.19.0 from PyPI on one A100 80GB PCIe, eager, 8,192
tokens, 0.90: BF16, BF16 with an FP8 cache, Qwen3-32B-AWQ and the author's compressed-tensors W4A16 GPTQ): blind
verdicts 4/4, KV 4/4, tokens 4/4 (-0.7 % to +0.4 %), weights 4/4. Searched for and left out: the 8 x L40S
Qwen3-235B-A22B-Instruct-2507-FP8 log (0.10.2, TP8 with expert parallelism) and a Qwen3-Next-80B-A3B BF16 log on two
H200s (0.10.2), whose repositories the index does not name; vllm#17469 (an A10, not in the catalog); kaito#2132
(Mistral-Small-4-119B, not in the catalog); club-3090's bench issues (Genesis-patched builds); committed logs whose GPU
the log does not name (a 0.17.0 ROCm Qwen2.5-7B start, a 0.8.5 DeepSeek-R1-Distill-Qwen-14B start at 32,768 tokens);
a Qwen3-VL-Embedding-2B pooling run on a T4 (not in the catalog); and a Mistral-7B GPTQ run on a DGX Spark (unified
memory, a GPTQ checkpoint of unstated width).

Set 25 (``data/startup_logs_25.json``, logs15) holds six rows, written from their sources and committed before shardwise
was scored on them: vllm#10511 (youkaichao's memory-profiling sanity checks of 2024-12-13 on an H100, main between
v0.6.4.post1 and v0.6.5, V0: Meta-Llama-3-8B at TP1, 14.96 GiB and 53.29 GiB, and TP2, 7.48 GiB),
eugr/spark-vllm-docker#396 (cyankiwi/MiniMax-M2.7-AWQ-4bit at TP2 over two DGX Sparks, 0.29.1rc1, 196,608 tokens:
refused at 0.80 with 22.5 GiB, started at 0.85 with 28.74 GiB and 240,816 tokens) and vllm#17238 (a Qwen2.5-32B-Instruct
INT8 W8A16 checkpoint at TP2 on two RTX 3090s, 0.8.1, eager, 4,096 tokens: refused at the default 256 sequences,
started at 8). Blind: verdicts 4/6, KV 1/3, tokens 0/1, weights 2/2. The misses, strict open misses: the Spark pair
keeps 16.4 - 16.6 GiB more beside the cache than modelled at both utilisations with the layout exact (vLLM's 23.25 GiB
for 196,608 tokens), the ``unified-memory`` class; the RTX 3090 pair's refusal at 256 sequences, where shardwise leaves
3.84 GiB and the thread gives no memory line. No capacity term changed. Searched for and left out: DeepSeek-V4-Flash and
-Pro logs on B200, H20, GH200 and H200 (vllm#51454, vllm#51041, vllm#44376, recipes#381: not in the catalog);
vllm-project/recipes#273 and mitchross/talos-argocd-proxmox#1995 (already in sets 1 and 21); vllm#17469 and
QwenLM/Qwen3#1387 (Qwen3-30B-A3B on 4 x A10, out of memory: the utilisation, and for #1387 the release, not given);
vllm#43308 (Gemma 4 31B AWQ on an A100, figures given as approximations); vllm#28228 (Kimi-Linear AWQ on 2 x RTX 3090:
the release not in the stored excerpt); recipes#831 (Qwen3.8-27B on an RTX PRO 6000, a 0.1.dev image); patched or
forked builds (syv-ai/qwen38-27b-rtx3090, club-3090, 1Cat-vLLM, Lvllm, kvcached, intel/llm-scaler); committed logs whose
repository the index does not name; and blog pages whose stored copy stops before their figures (blog.huikang.dev's
gpt-oss-120b on a Kaggle GPU at 0.11.2, chinmayhebbal.com's gpt-oss-120b on an MI300X).

Set 26 (``data/startup_logs_26.json``, logs16) holds ten rows, written from their sources and committed before shardwise
was scored on them: floSa/data-analyst-agent's Ollama-to-vLLM bench on one L4 (0.28.0 official image, fresh containers,
so cold compiles; an Ollama server resident beside it: Qwen2.5-7B-Instruct-AWQ at 32,768 tokens refused at 0.35 and
started at 0.45 / 0.60, Google's gemma-4-E4B-it QAT W4A16 export at 0.62 with 32,768 and 131,072 tokens, with its
breakdown line), Drolsey/syslab-server's RTX 5090 on the 0.28.0 image pinned by digest (Qwen3-32B-AWQ at 0.70 and 0.85,
Qwen3-14B-AWQ at 0.70 with 16,384 and 32,768 tokens, breakdown lines quoted) and josemendozaorg/homelab-android19
(Qwen2.5-7B-Instruct-AWQ on an RTX 5060 Ti, 0.11.0 from pip). Blind: verdicts 10/10, KV 5/10, tokens 2/9, weights 0/1;
no capacity term changed, so the same after. The misses, by class: the RTX 5090's three cold starts keep 1.66 - 1.77 GiB
more beside the cache than modelled (``sm120-cold-nontorch``: the 0.28 sm_120 cold start with a breakdown line that
tokens16 asked for; its warm-profiled 0.70 start is ``compile-state-by-run``), the E4B QAT export loads 9.81 GiB at 0.28.0
against 11.04 at 0.30.0 (``gemma4-quantised-weights``), and the 0.11.0 pip start is +5.2 % (``pip-sort``). Searched for
and left out: a vLLM 0.31.0 start of Llama-3.1-8B-Instruct on an A100 80GB with its breakdown (15.26 GiB of weights and
non-torch memory for 15.0 of weights, 1.44 of peak, 56.21 GiB and 460,496 tokens at 0.92, compiling cold: the 0.29+
non-sm_120 cold start tokens16 asked for) and a 0.28.0 / 0.29.0 / 0.30.0 RTX 5090 benchmark's breakdowns whose model is
not named, both in repositories the index does not name; the same file's 0.75 start of the E4B export, which ran out of
memory in the FULL CUDA graph capture beside the resident Ollama (4.79 GiB of another process; vLLM's own checks passed
with 5.97 GiB and 288,826 tokens), and the RTX 5090's failed boot while the previous container still held its memory;
llava-v1.6-mistral-7b at 0.10.2 on an H100 and a 0.11 Qwen3-8B-FP8 start on an RTX 4090 (repositories not named); the
0.10.2 Qwen3-Next-80B-A3B TP2 H200 and Qwen3-235B-FP8 8 x L40S logs (set 24's, repositories not named); issue threads
already cited (vllm#21348, #23278, #27508, #13061, #10517, #33155, #28228, llm-d-benchmark's H100 notes); and the
club-3090 and vllm-backport threads (patched builds).

Set 27 (``data/startup_logs_27.json``, logs23) holds ten rows from one lab's research logs, kthxo/distserving, every one
a PyPI install of vLLM 0.24.0 (torch 2.11.0+cu130) with ``VLLM_USE_FLASHINFER_SAMPLER=0`` but the first: Qwen3-8B on an
RTX 4090 refused at its default 40,960 tokens (4.61 GiB logged) and started at 32,768 and 0.92 twice, Qwen3-8B on an
RTX 5090 cold and warm, Qwen3-32B at TP2 on two RTX PRO 6000 Blackwell Max-Q cold and warm, Qwen3-8B at TP2 on the same
pair at 40,960 and 131,072 tokens (2048 / 256 pinned) and on two RTX 5090s. Nine rows were committed before scoring;
blind: verdicts 9/9, KV 3/3, tokens 7/8, weights 3/3. The miss, the later 4090 start (43,888 tokens, 37,280 modelled
cold, -15.1 %), led to the lab's earlier log of the same command (36,992, added after scoring: within 0.8 %): the two
are 6,896 tokens apart, as the 5090's first start and its restart with the compile cache filled are, and sized warm the
later one is +0.3 % (``compile-state-by-run``). With the tenth row: verdicts 10/10, KV 3/3, tokens 8/9, weights 3/3.
The cold and unstated sm_120 rows of this set are within 0.10 GiB as modelled at 0.24.0, where the 0.28 - 0.30 cold
sm_120 rows keep 0.5 - 1.8 GiB more (``sm120-cold-nontorch``). Searched for and left out: a 4 x L40S Qwen3-Coder-30B
start at 0.24.0 (aws-samples, already in an earlier set), a Qwen3-235B-FP8 TP8 start on 8 x L40S at 0.10.2 and a
Qwen2.5-7B-AWQ start on a 16 GB card with its breakdown (repositories the index does not name), the lab's SGLang runs
(H200, RTX PRO 6000 TP1, RTX 5090 TP2) and club-3090's threads (patched nightly builds).

Set 28 (``data/startup_logs_28.json``, logs24) holds fifteen rows, four of them refusals; thirteen were written from
their sources and committed before shardwise was scored on them: twelve curated server-log excerpts of one lab's RTX 3090
(TheBuccaneer/vllm-offload-profiles, vLLM 0.17.1 from pip on a Kubuntu desktop: Llama-3.1-8B-Instruct and
Qwen2.5-7B-Instruct at 8,192 tokens and 0.60 - 0.90, two with ``--cpu-offload-gb 12``; refused with "No available memory
for the cache blocks" at 0.60, "To serve at least one request" at 0.70 and once of two at 0.65, and a sampler warm-up
OOM once of two at the default 0.90) and a Qwen2.5-14B-Instruct-AWQ start at 0.13.0 on an RTX A5000 (kumaxxp/duo-talk,
cold). Blind: verdicts 12/13, KV 13/13, tokens 3/10, weights 13/13. Two rows added after those were scored, from a
repository found while looking for more (eslam-ahmed43/llm-lab: Qwen2.5-1.5B-Instruct on a Tesla T4 at 0.30.0, 0.85,
prefix caching off and on, warm from the AOT cache, FlashInfer's sampler unavailable on compute capability 7.5), were
committed before their own scoring: blind 2/2 on every count (8.70 GiB against 8.67, +0.4 % tokens). Sized cold, as an unstated start is, the lab's rows
kept 0.43 - 0.63 GiB less beside the cache than modelled; the excerpts keep their timestamps, and ten of them go from
"Model loading took" to "Available KV cache memory" in 3 - 5 s, a whole profile run, where a cold compile of a 7-8B
model takes longer by itself (0.17.0's Qwen2.5-7B: 29 s of Dynamo and Inductor, 37 s between the two lines): read as
warm (``compile_source``), they are -0.09 to +0.01 GiB (the two offloaded starts, 16 - 17 s, stay unstated and within
5 % cold). After: verdicts 12/13, KV 13/13, tokens 9/10, weights 13/13 (with the T4 pair 14/15, 15/15, 11/12,
15/15); no capacity term changed. The misses: the 0.90
refusal (a strict open miss, ``other-tenant``): vLLM's own process held 21.72 GiB, its budget plus the 0.53 GiB
shardwise charges after sizing, and 1.68 GiB of the card belonged to other processes (the desktop's), which the April
start of the same command did not meet; and the 0.65 start's 9,088 tokens (-15.1 %, 0.07 GiB), whose command was refused
four minutes later with the 0.41 GiB shardwise gives (``small-budget-by-run``). Searched for and left out: MiniMax-M2 on
4 x A800 at a 0.13.0 nightly (refused at 196,608 tokens with 9.38 GiB, 11.62 needed) and Qwen3-235B-A22B-2507-FP8 TP4
at 0.85 (8.03 GiB, 11.75 needed), both in files whose repository the index does not name; a Gemma 3 1B start on an A100
1g.5gb MIG slice at 0.10.1.1 (gbrayut/cloud-examples: the utilisation of each quoted log is not given); Qwen2-VL-2B on
an RTX 4080 at 0.10.2 (mrpid12org/imageworks: neither the model nor the card is in the catalog); and committed logs that
name no GPU (a ROCm 0.17.0 Qwen2.5-7B start, an 8 GB card at 0.30.0, four PCIe GPUs at 0.9.2).

Set 29 (``data/startup_logs_29.json``, logs25) holds five rows, written from their sources and committed before shardwise
was scored on them: ddiiwoong/newblog's two posts set 24 left out (an L40S at 0.8.5.post1 from pip serving
Qwen2.5-7B-Instruct in BF16, RedHatAI FP8-dynamic and GPTQ-Int4 with every flag default; an A10G at 0.9.0.1 serving
JumpStart's Mistral-7B-Instruct prepack, read as v0.2 from its shards and the 13.4967 GiB loaded, at 8,192 tokens and
0.92) and the ``--kv-cache-dtype fp8`` start of Xecutive-Development-LLC/ai-infra-lab's Qwen3.5-4B-FP8 at 128K on one
RTX 5090 (0.29.0), in the later revision of the file set 23 cites, which set 23 left out. Blind: verdicts 5/5, tokens
4/5 (-0.2, +0.7, +0.1 % on the L40S, +3.4 % on the A10G), weights 4/4 (no row quotes a budget). The miss is the fp8 start,
+5.3 % (1,269,697 against 1,205,662): its auto-dtype twins of set 23 are +2.75 % at 32K and 128K, one pool of about 1,235
pages at the 6 state pages a request shardwise models, so the fp8 start held about 30 pages (0.48 GiB) fewer than its
twin; it joins ``sm120-cold-nontorch`` with that said, nothing charged (what the fp8 cache adds on sm_120 was not read
at the tag). After: unchanged, no capacity term changed. Searched for and left out (the stored indexes return the
repositories earlier sets cite; of 38 repositories no set names that commit a ``vllm.log`` or ``vllm_server.log``,
the 20 with a snapshot here hold no start-up lines at their current commits but a DotsOCR start at 0.9.1 and a
0.14.0rc1 dev build): a
Kimi-K3 load OOM on 8 x B200 in a model-specific image and a Qwen3.8-27B NVFP4 MTP refusal on an RTX 5090 at a 0.26.1
dev build, in files whose repository the index does not name; set 28's MiniMax-M2 A800 refusal again; and models the
catalog does not size (Falcon-H1-7B's load OOM, Nemotron-H-8B and Ministral-3-8B on the same RTX 5090 as the fp8 row,
Gemma-4-12B on an RTX 5090 at 0.26.0, Ministral-3B on an A10G, DeepSeek-V4).

Set 30 (``data/startup_logs_30.json``, logs26) holds three rows, written from their sources and committed before shardwise
was scored on them: huggingface/cookbook's fine_tune_chatbot_docs_synthetic notebook (Llama-3.2-3B-Instruct in fp16 on a
Colab T4, 0.8.2, the V0 engine below compute capability 8.0, max_num_seqs 192 and a 0.8939 utilisation), souspilot/
DiscoverPhysicsWIP's Qwen3.6-27B at TP2 on two A100-80GB (0.27.1, cold) and kuuroooo/MindSafe's Llama 3.1 70B AWQ at TP2
on two A100-SXM4-40GB of a Snellius node (0.19.0, warm). Blind: verdicts 3/3, KV 2/3, tokens 2/3 (-3.1 %, -3.0 %,
-10.6 %), weights 3/3. The miss is the 0.19.0 A100 pair, 1.69 GiB of cache more than sized and a budget error (its
logged budget gives 104,581 tokens at shardwise's bytes a token, 104,608 logged): the 0.19+ 2 GiB TP term, whose
allocation (FlashInfer's all-reduce fusion workspace, built only at compute capability 9.0 and the 10.x family:
``config/vllm.py`` ``enable_allreduce_rms_fusion``, ``compilation/passes/fusion/allreduce_rms_fusion.py``, 0.19.0) an
A100 never makes; its logs print 'fuse_allreduce_rms': False. After (no term below 9.0, ``sizing.tp_buffers_counted``):
16.27 GiB and 106,608 tokens (+1.9 %); the Qwen3.6 pair +1.4 %, set 15's three Seed-OSS-36B TP4 A100 rows of 0.23.0
-3.3 / -3.2 / -2.6 % -> +0.3 / +0.4 / +1.1 % (KV -1.81 / -1.77 / -1.42 -> +0.19 / +0.23 / +0.58 GiB). With the term gone
set 15's MiniMax-M2.7 FP8 TP4 A100 row went -4.1 -> +9.8 %, and Marlin's 16-bit group scales of a block-FP8 checkpoint
on Ampere (``sizing.marlin_fp8_group``, ``marlin_utils_fp8.py``; 53.58 -> 54.41 GiB of weights a GPU), left uncharged
in tokens40 because they took that row out, bring it to +4.0 %. Board: KV 161 -> 162/177, tokens 157 -> 158/208, plan
cases 627/648 unchanged. Searched for and left out: a 0.20.1 Qwen3.6-35B-A3B refusal at the free-memory check on an
unnamed 11.49 GiB card beside other processes (JosephWoodall/agentic_local_coding), a Qwen2.5-72B TP2 refusal on two
A100s from an image tagged latest with no utilisation (sauravdev/TokenFlow-Router), a 0.19.1 Qwen2.5-Coder-14B start that
failed in graph capture with "CUDA error: operation not permitted" (qBraid/evolving-quantum-compilers), starts on
unnamed cards (liquidinvestigations/hoover4, Wolffy427/stage5), development and fork builds (club-3090), pages earlier sets
cite, approximate figures (vllm#43308), a downstream build (configiq#112) and logs whose repository the index does not
name.
"""

from __future__ import annotations

import dataclasses

import pytest
from shardwise.rules.capacity import sizing
from shardwise.rules.capacity.estimates import DEFAULT_ESTIMATES
from shardwise.rules.catalog import find_model
from startup_logs import (
    GIB,
    MISS_CAUSES,
    MISS_ROWS,
    VERDICT_KV_CAUSES,
    VERDICT_KV_ROWS,
    cause_table,
    load,
    miss_cause,
    nvlink_domain,
    row_key,
    score,
    scoreboard,
    size,
    verdict_key,
    verdict_kv_table,
)

LOGS = load()
CASES = [pytest.param(lg, id=f"{i}-{lg.url.rsplit('/', 1)[-1]}",
                      marks=[pytest.mark.xfail(strict=True, reason=lg.open_miss)] if lg.open_miss else [])
         for i, lg in enumerate(LOGS)]


@pytest.mark.parametrize("log", CASES)
def test_the_model_reproduces_what_vllm_logged(log):
    sc = score(log)
    s = sc.sized
    tolerance = max(0.6, 0.04 * s.usable_gib_per_gpu)
    if log.central:
        assert s.starts == log.started, (s.refusal, s.available_kv_gib)
    assert sc.verdict_right, (s.verdict, s.margin_verdict)  # the KV cache's verdict and SW101's margin
    if log.weights_gib is not None:
        assert sc.weights_within, (s.weights_gib_per_gpu, log.weights_gib)
    if log.kv_gib is not None:
        assert sc.kv_within, (s.available_kv_gib, log.kv_gib)
    if log.tokens is not None:
        per_token = s.needed_kv_gib * GIB / s.max_model_len
        assert sc.tokens_within_band, (s.kv_cache_tokens, log.tokens, tolerance * GIB / per_token)


def test_the_error_band_is_at_least_the_calibration_tolerance():
    for log in LOGS:
        s = score(log).sized
        assert s.error_band_gib >= max(0.6, 0.04 * s.usable_gib_per_gpu) - 1e-9


def test_the_dennislee22_qwen2_7b_runs_are_within_5_percent_of_their_token_counts():
    # 0.10.1.1: the one-GPU run at 0.25 (a one-GPU group builds no NCCL communicator, so its non-torch memory is
    # 0.11's 0.12 GiB) and the two-node TP2 run, whose image had no FlashInfer (PyTorch's sort over 256 rows)
    names = ("vllm-7B-1gpuA10080GB-0.25GRAM.log", "vllm-7B-2gpuA10040GB-0.5GRAM-diff-nodes.log")
    rows = [score(lg) for lg in LOGS if lg.url.endswith(names)]
    assert [(sc.sized.kv_cache_tokens, sc.log.tokens, sc.tokens_within_5pct) for sc in rows] == [
        (91376, 93872, True), (404288, 412944, True)]


#: graz-dev/vllm-benchmark studies/0-explorative: vllm/vllm-openai:v0.22.0, Qwen2.5-7B-Instruct on one A10G
A10G_0220 = next(lg for lg in LOGS if lg.url.startswith("https://github.com/graz-dev/vllm-benchmark/"))


def test_the_0_22_0_a10g_run_is_sized_as_vllm_sizes_it_with_a_cold_compile():
    # the V1 runner (Qwen2ForCausalLM is not in 0.22.0's DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES), its CUDA graph
    # estimate in the budget (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS defaults to 1), weights 0.10 GiB under the
    # 14.29 the study logged. Its Deployment keeps no compile cache, so every start compiles cold: the profile's peak is
    # the compile's, one copy of the 152,064 x 3,584 embedding (1.015 GiB, sizing.cold_compile_gib), not the 0.30 of
    # the forward pass and sampler; the 0.45 GiB that no term explained before (tokens33) is now 0.26 over-charged
    s = score(A10G_0220).sized
    assert A10G_0220.compile == "cold"
    assert (round(s.weights_gib_per_gpu, 2), round(s.cudagraph_gib_per_gpu, 2), s.cudagraphs_in_budget,
            round(s.activation_gib_per_gpu, 3), round(s.available_kv_gib, 2), s.kv_cache_tokens) == (
        14.19, 0.37, True, 1.015, 4.6, 86048)
    assert round(A10G_0220.settings.gpu_memory_utilization * A10G_0220.gpu_gib - A10G_0220.kv_gib
                 - A10G_0220.weights_gib - s.cudagraph_gib_per_gpu - s.non_torch_gib_per_gpu
                 - s.activation_gib_per_gpu, 2) == -0.26


def test_the_0_22_0_a10g_run_is_within_5_percent_of_its_token_count():
    # an open miss until tokens33 (99,376 tokens against 89,088, +11.5 %): 86,048 with the cold compile's peak (-3.4 %)
    assert (score(A10G_0220).sized.kv_cache_tokens, score(A10G_0220).tokens_within_5pct) == (86048, True)


#: emocat17/GraphRAG vllm.log: vLLM 0.13.0, Meta-Llama-3-8B-Instruct at TP4 with every default
GRAPHRAG_0130 = next(lg for lg in LOGS if lg.url.startswith("https://github.com/emocat17/GraphRAG/"))


def test_the_0_13_0_graphrag_run_is_sized_on_the_gpu_its_default_token_budget_names():
    # the log prints 'max_num_batched_tokens=8192' for `vllm serve` with no such flag: vLLM gives that default only to
    # a GPU of at least 70 GiB whose name lacks "a100" (arg_utils.py; an A100-80GB gets 2,048 tokens and 256
    # sequences), and its workers log capability 8.0: an A800-80GB, whose 1,024 sequences the sampler warm-up samples
    s = score(GRAPHRAG_0130).sized
    assert GRAPHRAG_0130.gpu == "A800-80GB"
    assert (s.max_num_seqs, s.max_num_batched_tokens, round(s.sampler_gib_per_gpu, 2), round(s.available_kv_gib, 2),
            s.kv_cache_tokens) == (1024, 8192, 4.73, 62.54, 2049264)
    as_a100 = score(dataclasses.replace(GRAPHRAG_0130, gpu="A100-80GB")).sized
    assert (as_a100.max_num_seqs, as_a100.max_num_batched_tokens) == (256, 2048)  # not what the log printed
    assert score(GRAPHRAG_0130).tokens_within_5pct


def _beside_kv(lg) -> tuple[float, float]:
    """(what vLLM's budget kept beside the weights and the KV cache, what shardwise's keeps), GiB per GPU: the
    activation peak, non-torch memory and the graphs where the budget holds them."""
    s = score(lg).sized
    logged = s.usable_gib_per_gpu - lg.weights_gib - lg.kv_gib
    return round(logged, 2), round(s.usable_gib_per_gpu - s.weights_gib_per_gpu - s.available_kv_gib, 2)


#: DaisukeTakai/eval_dataset: vLLM 0.10.0 (pip, no FlashInfer) on one 8 x H100 node, TP8, 32k, fp8 KV cache
H100_TP8_0100 = {name: next(lg for lg in LOGS if lg.url.endswith(name)) for name in ("vllm_judge.log",
                                                                                     "vllm_predict.log")}


def test_the_0_10_0_tp8_h100_runs_keep_the_same_memory_beside_the_kv_cache_whatever_the_model():
    # Qwen3-235B-A22B-FP8 with expert parallelism and the dense Qwen3-32B, one node, one release: vLLM kept 7.96 GiB a
    # GPU beside the weights and the cache for both (the sort over 1,024 rows of the same 151,936-entry vocabulary);
    # shardwise kept 6.00 / 6.01 before nccl46 and keeps 8.44 / 8.46 with NCCL's buffers connected at init (three
    # communicators of eight NVSwitch H100s: the tp and ep pynccl ones and torch's tp one, 834 MiB each, 2.44 GiB):
    # the same term for both models, 0.48 / 0.50 GiB over, inside the KV tolerance
    assert [_beside_kv(H100_TP8_0100[n]) for n in ("vllm_judge.log", "vllm_predict.log")] == [(7.96, 8.44),
                                                                                             (7.96, 8.46)]


def test_the_0_10_0_tp8_h100_qwen3_235b_run_is_within_5_percent_of_its_token_count():
    # nccl46: was +5.9 % (1,684,416 tokens against 1,590,736); 0.10.0 sets NCCL_CUMEM_ENABLE=0, so NCCL 2.26.2
    # connects every ring and tree channel and the NVLS buffer of its three communicators before the profile ends
    sc = score(H100_TP8_0100["vllm_judge.log"])
    assert (sc.sized.kv_cache_tokens, sc.tokens_within_5pct) == (1575392, True)


def test_the_0_11_to_0_15_nvswitch_hopper_runs_keep_pytorchs_tp_communicator_rings_beside_the_kv_cache():
    # tokens35: from 0.11 the TP group's torch.distributed communicator is created inside the profile by the logits'
    # all-gather and connects its 24 ring channels (0.28 GiB a GPU, sizing.torch_tp_communicator_gib). Every KV budget
    # residual (shardwise less logged, GiB) of those releases' NVSwitch Hopper rows at TP > 1 moves towards its log by
    # 0.28 and none away: +0.22, +0.42, +0.38, +0.43, +0.74, +0.74, +1.22 x 3 before
    rows = [lg for lg in LOGS if lg.kv_gib is not None and lg.settings.tp > 1 and lg.arch == "hopper"
            and lg.release.startswith(("0.11.", "0.12.", "0.13.", "0.14.", "0.15.", "0.16.", "0.17.", "0.18."))]
    got = sorted((lg.release, lg.model.id, lg.settings.tp, round(score(lg).sized.available_kv_gib - lg.kv_gib, 2))
                 for lg in rows)
    # set 23's Kimi-K2-Thinking at TP8 on 0.11.0 (8 x H200, 46.80 GiB logged): +1.50, inside its 5.26 GiB tolerance
    assert got == [
        ("0.11.0", "Qwen/Qwen3-32B", 2, -0.06),
        ("0.11.0", "moonshotai/Kimi-K2-Thinking", 8, 1.5),
        ("0.12.0", "Qwen/Qwen3-30B-A3B", 2, 0.15),
        ("0.12.0", "Qwen/Qwen3-VL-30B-A3B-Instruct", 2, 0.45),
        ("0.12.0", "Qwen/Qwen3-VL-30B-A3B-Instruct", 2, 0.45),
        ("0.14.1", "Qwen/Qwen3-32B", 2, 0.14),
        ("0.14.1", "RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic", 2, 0.1),
        # tokens39: Kimi-K2.5's fused-MoE caches held through the sampler run (0.94 before)
        ("0.15.0", "moonshotai/Kimi-K2.5", 8, 0.55),
        ("0.15.0", "moonshotai/Kimi-K2.5", 8, 0.55),
        ("0.15.0", "moonshotai/Kimi-K2.5", 8, 0.55),
    ]
    assert all(score(lg).verdict_right or lg.open_miss for lg in rows)


#: abinavChandar/demo_env_l4 vllm.log: vLLM 0.11.0 (pip, no FlashInfer), Llama-3.1-8B on one L4, 128 sequences
L4_0110 = next(lg for lg in LOGS if lg.url.startswith("https://github.com/abinavChandar/demo_env_l4/"))
#: ljg6861/anton_new vllm_server.log: vLLM 0.10.0 (pip, no FlashInfer), a Qwen3-30B-A3B AWQ on one RTX 3090
RTX3090_0100 = next(lg for lg in LOGS if lg.url.startswith("https://github.com/ljg6861/anton_new/"))


def test_the_small_gpu_pytorch_sort_runs_keep_less_beside_the_kv_cache_than_shardwise_charges():
    # PyTorch's sort over 128 x 128,256 (L4) and 256 x 151,936 (RTX 3090) logits, charged at the 38.2 B a logit
    # measured (benchmarks/gpu/torch_terms-h200-torch2.11.json: 38.15 at 128 x 128,256, 38.02 at 256 x 151,936): vLLM
    # kept 0.49 and 1.33 GiB beside the weights and the cache, shardwise 0.72 and 1.51. The bare sort alone, at the
    # bytes measured, is 0.58 and 1.38 GiB: more than vLLM kept for its whole activation peak and non-torch memory, so
    # no sampler term explains the gap (docs/capacity-model.md, "the sort would be 23 and 33 B a logit")
    assert _beside_kv(L4_0110) == (0.49, 0.72)
    assert _beside_kv(RTX3090_0100) == (1.33, 1.51)
    sort = DEFAULT_ESTIMATES.sort_bytes
    assert [round(n * sort(rows) / GIB, 2) for rows, n in ((128, 128 * 128_256), (256, 256 * 151_936))] == [0.58, 1.38]


def test_the_0_11_0_l4_run_is_within_5_percent_of_its_token_count():
    # 37,040 tokens against 38,944 (-4.9 %) with the sort at the measured 38.2 B a logit (-5.1 % at 39): inside the
    # tolerance by 0.1 point; vLLM still kept 0.23 GiB less beside the cache than shardwise (above)
    sc = score(L4_0110)
    assert (sc.sized.kv_cache_tokens, sc.log.tokens, sc.tokens_within_5pct) == (37040, 38944, True)


@pytest.mark.xfail(strict=True, reason=(
    "open miss: 18,112 tokens against 20,960 (-14 %, a 1.92 GiB cache where 5 % is 0.10 GiB); vLLM kept 1.33 GiB "
    "beside the weights and the cache, shardwise 1.51, and estimates the weights 0.08 above the logged 15.61; the "
    "1.39 of sampler is the sort over 256 x 151,936 logits at the 38.2 B a logit measured on a GPU, whose bare sort "
    "(1.38 GiB) is already more than vLLM kept: not a sampler term"))
def test_the_0_10_0_rtx_3090_run_is_within_5_percent_of_its_token_count():
    assert score(RTX3090_0100).tokens_within_5pct


#: Set 11 (issue 28): AUGMXNT/MI300-testing, V0 builds 0.6.4.dev9 / dev5 for ROCm 6.2 on one 8 x MI300X host (XGMI),
#: vLLM's benchmark scripts; the logs give the KV cache only as '# GPU blocks'
MI300X_V0 = [lg for lg in LOGS if lg.url.startswith("https://github.com/AUGMXNT/MI300-testing/")]


def _beside_kv_from_tokens(lg) -> tuple[float, float]:
    """:func:`_beside_kv` for a log that gives its cache as blocks: the logged tokens at shardwise's bytes a token
    (the cache layout, which the block counts match to the token: 16 tokens a block)."""
    s = score(lg).sized
    kv = lg.tokens * s.needed_kv_gib / s.max_model_len
    return round(s.usable_gib_per_gpu - lg.weights_gib - kv, 2), round(
        s.usable_gib_per_gpu - s.weights_gib_per_gpu - s.available_kv_gib, 2)


def test_the_v0_mi300x_runs_keep_more_beside_the_kv_cache_the_larger_the_tensor_parallel_group():
    # (TP, chunked prefill) -> (vLLM, shardwise), GiB a GPU beside the weights and the cache. The gap is 1.2 - 1.7 at
    # TP1 (3.3 with a 131,072-token profile), 2.7 at TP2 and 5.7 - 7.6 at TP8 with or without the activation of the
    # profile (chunked prefill: 512 tokens), where this build counts everything set up after its init_device
    # snapshot, RCCL's communicators included (worker/worker.py, the 0.6.3 form); NCCL_MIN_NCHANNELS=112 adds 1.31 of
    # the chunked run's 9.04 (5,384 blocks fewer on the same command). Not explained: no term was added.
    got = [(lg.settings.tp, bool(lg.settings.enable_chunked_prefill), _beside_kv_from_tokens(lg)) for lg in MI300X_V0]
    assert got == [
        (1, False, (3.68, 2.48)),  # Meta-Llama-3-8B-Instruct, 8,192
        (8, False, (12.83, 5.71)),  # Llama-3.1-8B-Instruct, 131,072
        (1, False, (18.07, 14.75)),  # Llama-3.1-8B-Instruct, 131,072, 15 scheduler steps
        (8, False, (7.39, 1.72)),  # Llama-2-7b-chat-hf, 4,096
        (2, False, (7.68, 5.03)),  # Mixtral-8x7B-Instruct-v0.1, 32,768
        (1, False, (9.2, 7.5)),  # Mixtral-8x7B-Instruct-v0.1, 32,768
        (8, False, (13.34, 5.71)),  # Llama-3.1-8B-Instruct, 131,072 (0.6.4.dev5)
        (8, True, (10.51, 1.47)),  # the same with --enable-chunked-prefill and NCCL_MIN_NCHANNELS=112
    ]


#: sipeed/sipeed_wiki NanoKVM_Pro/cua.md: vLLM 0.11.0 (pip, no FlashInfer), Qwen3-VL-30B-A3B-Instruct, 4 x RTX 3090
RTX3090_QWEN3VL_0110 = next(lg for lg in LOGS if lg.url.startswith("https://github.com/sipeed/sipeed_wiki/"))
#: Zzsf11/VideoCuttingAgent: vLLM 0.12.0, the same model at TP2 on H100s (two runs, 29.3114 / 29.3115 GiB loaded)
H100_QWEN3VL_0120 = [lg for lg in LOGS if lg.model.id == "Qwen/Qwen3-VL-30B-A3B-Instruct" and lg.gpu == "H100"]


def test_qwen3_vl_30b_a3b_keeps_the_multimodal_rotary_cache_vllm_builds_for_it():
    # Its config.json (text_config) carries rope_scaling {mrope_interleaved, mrope_section [24, 20, 20]} like the dense
    # Qwen3-VL's, so vLLM's get_rope builds MRotaryEmbedding (rotary_embedding/__init__.py: "mrope_section" in
    # rope_scaling), whose cos/sin cache holds 4 x max_position_embeddings positions (mrope.py, 0.11.0): 4 x 262,144 x
    # 128 x 2 bytes = 0.25 GiB on every GPU, where a plain RoPE's is 0.0625. The catalog lacked the rope_scaling, so
    # the weights were 0.24 GiB under what 0.11.0 loaded at TP4 and 0.31 under 0.12.0's at TP2; now 0.05 and 0.12
    # (the budget beside the weights and the cache agrees at TP4: 4.14 logged, 4.10 shardwise's, either way).
    model = find_model("Qwen/Qwen3-VL-30B-A3B-Instruct")
    assert sizing.mrope(model)
    assert sizing.rotary_cache_bytes(model, 4) == 4 * 262_144 * 128 * 2
    s4 = score(RTX3090_QWEN3VL_0110).sized
    assert _beside_kv(RTX3090_QWEN3VL_0110) == (4.14, 4.1)
    assert (round(s4.weights_gib_per_gpu, 2), round(s4.available_kv_gib, 2), s4.kv_cache_tokens) == (14.72, 2.41,
                                                                                                      105184)
    assert [round(score(lg).sized.weights_gib_per_gpu - lg.weights_gib, 2) for lg in H100_QWEN3VL_0120] == [-0.12,
                                                                                                            -0.12]


def test_the_0_11_0_tp4_rtx_3090_qwen3_vl_run_is_within_5_percent_of_its_token_count():
    # 105,184 tokens against 100,752 logged (+4.4 %, +3.1 % with the sort at 39 B a logit; +11.3 % before the
    # multimodal rotary cache)
    assert score(RTX3090_QWEN3VL_0110).tokens_within_5pct


#: genn888/MASS_delivery doc/minimax_m27_hpc_vllm_setup.md: a 0.22.1rc1.dev16 wheel, MiniMax-M2.7 FP8 at TP4 on four
#: A100-SXM4-80GB, 131,072 tokens, --compilation-config '{"cudagraph_mode":"PIECEWISE"}'
A100_MINIMAX_M27 = next(lg for lg in LOGS if lg.url.startswith("https://github.com/genn888/MASS_delivery/")
                        and lg.model.id == "MiniMaxAI/MiniMax-M2.7")


def test_the_0_22_1_tp4_a100_minimax_m2_7_run_is_within_5_percent_of_its_token_count():
    # tokens30: its --compilation-config cudagraph_mode PIECEWISE captures no full decode graphs, so the CUDA graph
    # estimate in the 0.22 budget is the piecewise graphs' (0.66 GiB, 1.01 with the default FULL_AND_PIECEWISE):
    # 236,816 tokens against 244,576 (-3.2 %; -5.6 % before). The rest (0.46 GiB of cache) is not split: the run
    # logs neither the weights nor the budget. tokens39: the fused-MoE caches held through the sampler run take 0.13
    # GiB more (14.00 GiB and 236,816 tokens, -3.2 %, before): 234,640, -4.1 %; 230,896 before with the default graphs.
    # logs26: no 0.19+ TP term below compute capability 9.0 (2.0 GiB more cache: 15.87 GiB, 268,464 tokens, +9.8 %)
    # and Marlin's 16-bit group scales of the block-FP8 checkpoint on Ampere (53.58 -> 54.41 GiB of weights a GPU):
    # 15.05 GiB and 254,480 tokens, +4.0 %; 228,720 -> 248,560 with the default graphs
    s = score(A100_MINIMAX_M27).sized
    assert (round(s.cudagraph_gib_per_gpu, 2), round(s.available_kv_gib, 2), s.kv_cache_tokens,
            round(s.weights_gib_per_gpu, 2)) == (0.66, 15.05, 254480, 54.41)
    assert score(A100_MINIMAX_M27).tokens_within_5pct
    default = dataclasses.replace(A100_MINIMAX_M27, settings=dataclasses.replace(A100_MINIMAX_M27.settings,
                                                                                 cudagraph_mode=None))
    assert (round(score(default).sized.cudagraph_gib_per_gpu, 2), score(default).sized.kv_cache_tokens) == (1.01,
                                                                                                             248560)


#: aihpi/litellm-k8s docs/adding-models.md: nvidia/Llama-3.3-70B-Instruct-FP8 on one H100 at 0.95, --kv-cache-dtype fp8,
#: max-num-batched-tokens 8,192, 32,000 tokens (``latest-cu130`` pulled when 0.15.1 was the newest release)
H100_LLAMA33_FP8_0151 = next(lg for lg in LOGS if lg.url.startswith("https://github.com/aihpi/litellm-k8s/")
                             and lg.started and lg.model.id == "nvidia/Llama-3.3-70B-Instruct-FP8")


def test_the_0_15_1_h100_llama_3_3_70b_fp8_runs_load_the_logged_weights_and_keep_the_refusal():
    # weights to the logged 67.7 GiB; at the default 131,072 tokens the same engine is refused (20.0 GiB needed,
    # 5.11 available), as vLLM refused it
    refused = next(lg for lg in LOGS if lg.url == H100_LLAMA33_FP8_0151.url and not lg.started)
    s, r = score(H100_LLAMA33_FP8_0151).sized, score(refused).sized
    assert (round(s.weights_gib_per_gpu, 1), round(r.needed_kv_gib, 1), r.starts) == (67.7, 20.0, False)


@pytest.mark.xfail(strict=True, reason=(
    "open miss: 37,456 tokens against 33,504 (+11.8 %): 5.72 GiB of cache modelled where vLLM logged 5.11, with the "
    "weights exact (67.7 GiB); the refused run at 131,072 tokens logs the same 5.11, so the 0.61 GiB vLLM kept beside "
    "the cache does not depend on max_num_seqs (16 or 8). Not attributed: shardwise charges 1.69 GiB for the 8,192-token "
    "forward pass, 0.12 of non-torch memory and a 0.15-line sampler of 0.17-0.22 GiB; candidates, not measured, are the "
    "FP8 KV cache's attention path on Hopper and asynchronous scheduling's buffers"))
def test_the_0_15_1_h100_llama_3_3_70b_fp8_run_is_within_5_percent_of_its_token_count():
    assert score(H100_LLAMA33_FP8_0151).tokens_within_5pct


#: kenrollins/gemma-forge at 2982efb: Gemma 4 31B-IT on a Dell XR7620's PCIe L4s, vLLM 0.19.0 (set 17)
GEMMA4_L4_0190 = {lg.settings.tp: lg for lg in LOGS if lg.url.startswith("https://github.com/kenrollins/gemma-forge/")
                  and lg.started}
#: hawkoli1987/mech-util at 73333af: GLM-4.6 at TP8 with expert parallelism on 8 x H200, vLLM 0.12.0 (set 17)
H200_GLM46_0120 = next(lg for lg in LOGS if lg.url.startswith("https://github.com/hawkoli1987/mech-util/"))


def test_gemma4_31b_on_l4s_holds_its_transformers_built_vision_tower_whole_on_every_gpu():
    # logs17: the 550M-parameter tower (AutoModel.from_config) is 1.02 GiB on each L4, not its TP share: the bf16
    # TP4 run's cache comes to 4.16 GiB (logged 4.12; 5.23 with the tower split four ways, 4.46 before toksingle10
    # counted Gemma 4's second rotary cache, 0.25 GiB at 262,144 positions, and the V slots of the k_eq_v layers,
    # 0.05 a GPU at TP4); the NVFP4 TP2 run's 16.16 GiB a GPU (the journal's "~16.3", 15.44 before) is the same two
    # terms and the ten global layers' attention, excluded from NVFP4, counted at 512 wide; the load refusals stay
    s = {tp: score(lg).sized for tp, lg in GEMMA4_L4_0190.items()}
    assert {tp: (round(x.weights_gib_per_gpu, 2), round(x.available_kv_gib, 2)) for tp, x in s.items()} == {
        4: (15.75, 4.16), 2: (16.16, 2.43)}
    refused = [score(lg).sized for lg in LOGS if lg.url.startswith("https://github.com/kenrollins/gemma-forge/")
               and not lg.started]
    assert [x.starts for x in refused] == [False, False, False]


def test_the_0_19_0_tp4_l4_gemma4_31b_run_is_within_5_percent_of_its_token_count():
    # toksingle10: with Gemma 4's weights as vLLM builds them (second rotary cache, V slots) 18,160 against 17,968
    # (+1.1 %; 19,472 and +8.4 % before, an open miss)
    sc = score(GEMMA4_L4_0190[4])
    assert (sc.sized.kv_cache_tokens, sc.tokens_within_5pct) == (18160, True)


def test_the_0_19_0_tp2_l4_gemma4_31b_nvfp4_run_is_within_5_percent_of_its_token_count():
    # toksingle10: 10,624 tokens against 10,432 (+1.8 %; 13,776 and +32 % before, an open miss): the weights 16.16 GiB
    # a GPU (the journal's "~16.3"; 15.44 before) and no cold-compile copy of the embedding, which a multimodal run
    # does not pass to its compiled graph (sizing.mm_inputs_embedded); the cache 2.43 GiB (the journal's "~2.39")
    sc = score(GEMMA4_L4_0190[2])
    assert (sc.sized.kv_cache_tokens, round(sc.sized.available_kv_gib, 2), sc.tokens_within_5pct) == (10624, 2.43, True)


def test_the_0_12_0_tp8_h200_glm_4_6_probes_need_no_tp8_communicator_term():
    # tokmulti10: the row is the probe of experiment 5B (its vLLM command is the baseline's: ENABLE_PREFIX_CACHING=no
    # only leaves a flag out that V1 turns on anyway), which logged 66.00-66.99x at 32,768 tokens; the table's other
    # probes of the same command with one setting changed floor to 133 (16,384 tokens), 33 (65,536), 33 (bf16 KV) and
    # 64 (--no-enable-chunked-prefill). shardwise, with no TP8 term beyond torch's tp ring (0.28 GiB), lands inside or
    # within 3 % of each floor's range, so the 4.6 GiB a GPU the '61.44x' line implied is not a TP8 NVSwitch cost.
    lg = H200_GLM46_0120
    s = score(lg).sized
    assert (lg.tokens, s.kv_cache_tokens, s.kv_bytes_per_token_per_gpu) == (2_179_072, 2_224_064, 23_552)
    assert score(lg).tokens_within_5pct
    probes = {  # (setting changed, its value): (floor of the logged concurrency, its max_model_len)
        ("max_model_len", 16_384): (133, 16_384), ("max_model_len", 65_536): (33, 65_536),
        ("kv_cache_dtype", "auto"): (33, 32_768), ("enable_chunked_prefill", False): (64, 32_768)}
    got = {}
    for (field, value), (floor, mml) in probes.items():
        sized = size(dataclasses.replace(lg, settings=dataclasses.replace(lg.settings, **{field: value})))
        got[field, value] = (sized.kv_cache_tokens, floor * mml, (floor + 1) * mml)
    assert got == {
        ("max_model_len", 16_384): (2_224_064, 2_179_072, 2_195_456),
        ("max_model_len", 65_536): (2_224_064, 2_162_688, 2_228_224),
        ("kv_cache_dtype", "auto"): (1_112_032, 1_081_344, 1_114_112),
        # 32,768 batched tokens, routed 16,384 at a time by 0.12.0's fused-MoE chunk (tokmisc12; 2,040,288 while 32,768
        # were charged on every release: -2.7 % below the range, now +0.9 % above it)
        ("enable_chunked_prefill", False): (2_148_560, 2_097_152, 2_129_920)}
    # and the file's '61.44x' (2,013,266 tokens) is what vLLM's default max_num_seqs (1,024 on an H200: the scripts
    # before the probe set none) leaves: PyTorch's sort over 1,024 x 151,552 logits in the profile
    default = size(dataclasses.replace(lg, settings=dataclasses.replace(lg.settings, max_num_seqs=None)))
    assert (default.max_num_seqs, default.kv_cache_tokens, round(default.sampler_gib_per_gpu, 2)) == (
        1_024, 2_030_064, 5.6)


#: The one log whose quoted budget is not its binding stage's: kubesimplify's Qwen3-235B-A22B-FP8 at PP4 on RTX PRO
#: 6000 (the post's table gives one stage's 26.84 GiB; the 555,680 tokens are the stage that holds least).
PP4_RTX_PRO_6000 = next(lg for lg in LOGS if lg.settings.pp == 4 and lg.gpu.startswith("RTX PRO 6000"))


def test_where_a_log_gives_its_budget_the_cache_layout_gives_its_token_count():
    # The layout (bytes a token, block size, KV cache groups, what a request holds) against every log that quotes both
    # "Available KV cache memory" and "GPU KV cache size": shardwise's tokens per GiB times the logged GiB is within
    # 0.5 % of the logged count (the logged GiB is rounded to 0.01), so a token count outside 5 % there is the
    # budget's error, not the layout's. The one exception is a pipeline-parallel log quoting another stage's budget.
    split = [(score(lg), lg) for lg in LOGS if lg.kv_gib is not None and lg.tokens is not None
             and score(lg).tokens_from_logged_kv is not None]
    assert len(split) == 138  # set 30 adds three (T4 at 0.8.2, A100 pairs at 0.19.0 and 0.27.1), within 0.05 %;
    # set 28 adds twelve rows (RTX 3090 at 0.17.1, RTX A5000 at 0.13.0, T4 at 0.30.0),
    # all within 0.5 % or, for the 0.49 GiB start, the budget's rounding to 0.01 GiB (1.0 %: 9,164 tokens of 0.49 GiB,
    # 9,088 logged, 0.4854 GiB);
    # set 27 adds kthxo/distserving's two Qwen3-8B TP2 starts on RTX PRO 6000s (0.24.0), within 0.003 %;
    # set 26 adds nine rows (L4 and RTX 5090 at 0.28.0, RTX 5060 Ti at 0.11.0), all within 0.2 %;
    # set 25 adds the two-Spark MiniMax-M2.7 AWQ start (0.9 % off, below); set 23 adds Qwen3-4B-Instruct-2507-FP8 on an RTX 5090 and Kimi-K2-Thinking at TP8, both exact;
    # set 24 seven rows of Qwen3-14B (BF16 and AWQ) on L40S and L4 at 0.28.0, TP2 and PP2 included, and four of
    # Qwen3-32B (BF16, FP8 cache, AWQ, W4A16 GPTQ) on an A100 at 0.19.0, all within 0.1 %
    off = [lg for sc, lg in split if not sc.logged_budget_gives_logged_tokens]
    # vllm#21348 (set 19, 0.9.2 inferred from the issue's date, an LMCache connector): 1.1 % fewer tokens than its
    # 8.11 GiB give at 48,128 bytes a token (94 layers, one KV head a GPU at TP4): at TP4 each of the four workers logs
    # its own budget and, in 0.9.2, its own token count before the engine keeps the fewest blocks of all
    # (unify_kv_cache_configs), so the thread's two lines need not be one worker's (2,047 tokens are 0.09 GiB)
    # set 22: cyankiwi's Qwen3.8-27B AWQ checkpoints on RTX 3090s at 0.29.0 with fp8_e5m2 pages, text only: the
    # hybrid layout gave 1.8 % (TP2, 262,144 tokens), 3.3 % (TP2, 131,072) and 4.4 % (one GPU, 114,688) more tokens
    # than the logged budget holds (569,277, 559,589 and 125,881), the first layout misses of the sets, until hybrid13
    # modelled 0.29.0's default prefix caching (Mamba cache mode align: two state pages a request per state group):
    # -0.18 %, -0.15 % and +0.61 % (one GPU: within one 1,568-token block of its 76 a request, 1.3 %), so the one-GPU
    # row stayed outside 0.5 % (set 21's Qwen3.8-27B-FP8 pair, prefix caching declared, is exact) until tokens43 read
    # the AWQ-INT4 checkpoint's format (compressed-tensors at group 32 with zero points, 1.37 GiB more weights): its
    # budget then holds a whole block less of the 76 a request, and the logged 4.05 GiB give 120,643 tokens (+0.18 %);
    # tokens45 read the AWQ-BF16-INT4's format too (the same, its linear attention 16-bit): the TP2 rows' logged 8.91 GiB
    # give 541,552 and 560,091 tokens (-0.04 and -0.06 %; 540,936 and 559,461 before)
    qwen38 = [lg for lg in LOGS if lg.model.id.startswith("cyankiwi/Qwen3.8-27B-AWQ")]
    # set 25: cyankiwi's MiniMax-M2.7 AWQ at TP2 over two DGX Sparks (0.29.1rc1): the logged 28.74 GiB gives 243,024
    # tokens at 126,976 B a token, vLLM kept 240,816 (0.9 % fewer, 0.26 GiB): at TP2 the count is the binding worker's
    # and the quoted budget may be the other's ("rank"); the same layout gives vLLM's own 23.25 GiB for 196,608 tokens
    # on the refused start (test_the_0_29_1_two_spark_minimax_m2_7_awq_refusal_needs_the_logged_cache)
    spark_pair = next(lg for lg in LOGS if lg.url.endswith("/spark-vllm-docker/issues/396") and lg.started)
    assert off == [PP4_RTX_PRO_6000, next(lg for lg in LOGS if lg.url.endswith("/vllm/issues/21348")), spark_pair]
    assert score(spark_pair).tokens_from_logged_kv == 243031  # 243,024 before tokens39 (the layout's rounding)
    assert sorted((lg.settings.tp, lg.tokens, score(lg).tokens_from_logged_kv) for lg in qwen38) == [
        (1, 120422, 120643), (2, 541764, 541552), (2, 560445, 560091)]
    assert score(PP4_RTX_PRO_6000).tokens_from_logged_kv == 586316  # +5.5 % on the stage the post quotes


def test_the_token_counts_outside_5_percent_split_into_budget_and_layout():
    # tokens30's finding, held: every token miss whose log quotes a budget is a budget error (the count from the
    # logged budget within 0.5 %) but a PP4 log quoting another stage's budget and set 19's vllm#21348 (1.1 % off at
    # TP4, where the quoted budget may be another worker's: "rank", tokens34); no one-GPU log is a layout miss; the
    # rest quote no budget (docs/capacity-model.md, 'Token counts outside 5 %, by class')
    misses = [score(lg) for lg in LOGS if score(lg).tokens_within_5pct is False]
    split = sorted((sc.miss_class, sc.log.release, sc.log.model.id, sc.log.gpu, sc.log.settings.tp,
                    sc.log.settings.pp, sc.sized.kv_cache_tokens, sc.tokens_from_logged_kv, sc.log.tokens)
                   for sc in misses if sc.miss_class != "unsplit")
    assert split == [
        ("budget", "0.10.0", "cpatonn/Qwen3-30B-A3B-Thinking-2507-AWQ-4bit", "RTX 3090", 1, 1, 18112, 20963, 20960),
        ("budget", "0.10.2", "Qwen/Qwen3-14B", "A100-40GB", 1, 1, 47264, 42652, 42656),
        ("budget", "0.11.0", "DeepSeek-R1-Distill-Qwen-32B-FP8", "L40S", 1, 1, 26032, 24725, 24736),
        ("budget", "0.11.0", "Qwen/Qwen2.5-7B-Instruct-AWQ", "RTX 5060 Ti", 1, 1, 127328, 121133, 121072),
        ("budget", "0.13.0", "huihui-ai/Huihui-gpt-oss-20b-mxfp4-abliterated-v2", "GB10", 1, 1, 322400, 282677,
         282624),
        ("budget", "0.15.1", "nvidia/Llama-3.3-70B-Instruct-FP8", "H100", 1, 1, 35696, 33485, 33504),
        ("budget", "0.17.1", "Qwen/Qwen2.5-7B-Instruct", "RTX 3090", 1, 1, 7712, 9164, 9088),
        ("budget", "0.27.1", "Qwen/Qwen3-32B", "RTX PRO 6000 Blackwell", 1, 2, 63296, 56675, 56640),
        ("budget", "0.27.1", "Qwen/Qwen3.8-27B-FP8", "RTX 3090", 2, 1, 342243, 302847, 302921),
        ("budget", "0.28.0", "Qwen/Qwen3-14B-AWQ", "L4", 1, 1, 60368, 67696, 67696),
        ("budget", "0.28.0", "Qwen/Qwen3-14B-AWQ", "RTX 5090", 1, 1, 71648, 60750, 60768),
        ("budget", "0.28.0", "Qwen/Qwen3-14B-AWQ", "RTX 5090", 1, 1, 71648, 60750, 60768),
        ("budget", "0.28.0", "Qwen/Qwen3-32B-AWQ", "RTX 5090", 1, 1, 9120, 12287, 12272),
        ("budget", "0.28.0", "Qwen/Qwen3-32B-AWQ", "RTX 5090", 1, 1, 28384, 21132, 21120),
        ("budget", "0.28.0", "google/gemma-4-E4B-it-qat-w4a16-ct", "L4", 1, 1, 160602, 150039, 150167),
        ("budget", "0.28.0", "google/gemma-4-E4B-it-qat-w4a16-ct", "L4", 1, 1, 199775, 186636, 186796),
        ("budget", "0.29.0", "Qwen/Qwen3-30B-A3B-Instruct-2507-FP8", "L4", 4, 1, 422064, 401946, 401776),
        ("budget", "0.29.0", "Qwen/Qwen3-4B-Instruct-2507", "RTX 5060 Ti", 1, 1, 15872, 10551, 10576),
        ("budget", "0.29.0", "Qwen/Qwen3-8B-FP8", "RTX PRO 4500 1g.16gb", 1, 1, 25248, 16307, 16288),
        ("budget", "0.29.0", "Qwen/Qwen3-8B-FP8", "RTX PRO 4500 1g.16gb", 1, 1, 50496, 28828, 28784),
        ("budget", "0.29.0", "RedHatAI/gemma-4-26B-A4B-it-FP8-dynamic", "L40S", 1, 1, 63135, 57085, 57065),
        ("budget", "0.29.0", "cyankiwi/Qwen3.8-27B-AWQ-BF16-INT4", "RTX 3090", 2, 1, 477684, 541552, 541764),
        ("budget", "0.29.0", "cyankiwi/Qwen3.8-27B-AWQ-BF16-INT4", "RTX 3090", 2, 1, 494156, 560091, 560445),
        ("budget", "0.29.0", "cyankiwi/Qwen3.8-27B-AWQ-INT4", "RTX 3090", 1, 1, 133324, 120643, 120422),
        ("budget", "0.30.0", "Qwen/Qwen3-4B-Instruct-2507", "RTX 5060 Ti", 1, 1, 39024, 33702, 33728),
        ("rank", "0.29.1rc1.dev17", "cyankiwi/MiniMax-M2.7-AWQ-4bit", "GB10", 2, 1, 380368, 243031, 240816),
        ("rank", "0.9.2", "Qwen/Qwen3-235B-A22B-FP8", "H100", 4, 1, 253792, 180926, 178880),
        ("stage", "0.27.1", "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", "RTX PRO 6000 Blackwell", 1, 4, 617904, 586316,
         555680),
    ]
    # set 23's twelve misses (RTX 5090 rows of ai-infra-lab and the recipes' Qwen3.8 page) quote no budget: unsplit;
    # hybrid13 brings three of them within 5 % (Qwen3.5-4B BF16 at 32K, granite-4.0-h-micro at 32K and 128K) and moves
    # set 22's two AWQ-BF16-INT4 TP2 rows out, on their budget (above); tokens18 brings the RedHatAI Qwen3.5-4B
    # FP8-dynamic pair within (llm-compressor's ignore list keeps its linear attention 16-bit); tokens36 brings set
    # 22's 0.30.0 E4B QAT L4 row within (0.29+ loads the export's own LM head untied); tokens38 sizes the Qwen3.8
    # page's pre-release starts with prefix caching on (Mamba cache mode align, what their counts show): its two
    # language-model-only starts come within 5 % and the --max-num-seqs 8 one goes out (-10.3 %)
    # set 27: the later RTX 4090 0.24.0 Qwen3-8B start (compile-state-by-run) quotes no budget
    # set 29: ai-infra-lab's fp8-KV Qwen3.5-4B-FP8 start on the RTX 5090 (sm120-cold-nontorch) quotes no budget
    # tokens39: the fused-MoE caches held through the sampler run (Behaviour.moe_workspace_persists) bring four of the
    # Gemma 4 26B-A4B FP8-dynamic budget misses within 5 % (budget 28 -> 24)
    # tokens41: vLLM 0.25 - 0.28 run a dense hybrid on the V1 runner (Behaviour.v2_skips_state_models): the Qwen3.8
    # page's two language-model-only pre-release starts go out again (-12.5 % each; unsplit 20 -> 22), the 0.27.1
    # FP8 pair's budget falls 6.04 -> 5.64 GiB (367,001 -> 342,243 tokens, +13.0 %; 302,847 from the logged budget,
    # 303,341 on V2): still a budget miss
    # tokens43: cyankiwi's Qwen3.8-27B-AWQ-INT4 read as compressed-tensors at group 32 with zero points (its weights
    # 16.64 -> 18.02 GiB against 18.37): the one-GPU row's logged budget gives its count (+0.18 %), a budget miss at
    # +10.7 % (+45.2 % before), no longer the sets' one layout miss (layout 1 -> 0, budget 24 -> 25)
    assert sum(sc.miss_class == "unsplit" for sc in misses) == 22
    assert ("token counts outside 5 %, by where the error is: budget 25, layout 0, stage 1, rank 2, unsplit 22"
            in scoreboard(LOGS).splitlines())


def test_the_unsplit_token_misses_in_whole_blocks_of_shardwise_s_layout():
    # tokens44: a count logged without its budget still tells the layout: vLLM's "GPU KV cache size" is
    # int(num_blocks / blocks a request x max_model_len) from 0.20 (num_blocks x 16 for one full-attention group
    # before), so a count that no whole block total gives under shardwise's blocks a request is a layout miss whatever
    # the budget, and one that some total gives puts the miss in the budget: the logged blocks against shardwise's
    misses = [score(lg) for lg in LOGS if score(lg).tokens_within_5pct is False and score(lg).miss_class == "unsplit"]
    rows = sorted((miss_cause(sc.log), sc.log.release, sc.log.model.id, sc.log.settings.dp, sc.log.tokens,
                   sc.logged_blocks, sc.sized.kv_blocks) for sc in misses)
    assert rows == [
        ("compile-state-by-run", "0.24.0", "Qwen/Qwen3-8B", 1, 43888, 2743, 2330),
        ("gemma4-cold-peak", "0.28.0", "google/gemma-4-E2B-it", 1, 329579, 32266, 35050),
        ("gemma4-quantised-weights", "0.30.0", "google/gemma-4-31B-it-qat-w4a16-ct", 1, 28846, 7539, 7934),
        ("gemma4-quantised-weights", "0.30.0", "nvidia/Gemma-4-31B-IT-NVFP4", 1, 21870, 5716, 6450),
        ("large-tp-communicators", "0.19.0", "zai-org/GLM-5.1", 1, 858048, 13407, 14872),
        ("large-tp-communicators", "0.6.4.dev5", "meta-llama/Llama-3.1-8B-Instruct", 1, 10510272, 656892, 693927),
        # the recipes' pre-release starts: 75, 112, 126 and 112 blocks, as tokens38 read them
        ("nvfp4-prerelease-weights", "0.26.1", "Inferact/Qwen3.8-27B-NVFP4", 1, 76458, 112, 98),
        ("nvfp4-prerelease-weights", "0.26.1", "Inferact/Qwen3.8-27B-NVFP4", 1, 91022, 75, 67),
        ("nvfp4-prerelease-weights", "0.26.1", "Inferact/Qwen3.8-27B-NVFP4", 1, 135926, 112, 98),
        ("nvfp4-prerelease-weights", "0.26.1", "Inferact/Qwen3.8-27B-NVFP4", 1, 152917, 126, 113),
        # Phi-4-mini and its FP8 twin: one pool at each model's two lengths (9,503 and 11,036 blocks) once the
        # 262,144-token window slides (2,049 and 8,193 blocks a request); no whole block total gave them before
        ("sm120-cold-nontorch", "0.29.0", "RedHatAI/Phi-4-mini-instruct-FP8-dynamic", 1, 176489, 11036, 11680),
        ("sm120-cold-nontorch", "0.29.0", "RedHatAI/Phi-4-mini-instruct-FP8-dynamic", 1, 176554, 11036, 11680),
        ("sm120-cold-nontorch", "0.29.0", "RedHatAI/Qwen3.5-4B-FP8-dynamic", 1, 1205662, 1205, 1269),
        ("sm120-cold-nontorch", "0.29.0", "microsoft/Phi-4-mini-instruct", 1, 151973, 9503, 10144),
        ("sm120-cold-nontorch", "0.29.0", "microsoft/Phi-4-mini-instruct", 1, 152029, 9503, 10144),
        # the H20's hybrid count at 0.19 (num_blocks // groups x block) is neither form: undecided
        ("source-ambiguous", "0.19.0", "Qwen/Qwen3.5-27B", 1, 290864, None, 668),
        ("text-only-warm-restart", "0.30.0", "google/gemma-4-31B-it-qat-w4a16-ct", 1, 2555, None, 0),
        # gpt-oss-20b's DP4 count is no whole block total over the 2,569 blocks a request of its TP1 rows (review22:
        # all four of the log's counts fit 2,313): the layout, or what the count sums, differs at DP4
        ("v2-moe-0.29", "0.29.0", "openai/gpt-oss-20b", 1, 82819, 6493, 8506),
        ("v2-moe-0.29", "0.29.0", "openai/gpt-oss-20b", 1, 130986, 12316, 13937),
        ("v2-moe-0.29", "0.29.0", "openai/gpt-oss-20b", 4, 438932, 0, 32101),
        ("wsl2-profile-transient", "0.27.1", "Qwen/Qwen2.5-7B-Instruct", 1, 102544, 6409, 7715),
        ("wsl2-profile-transient", "0.27.1", "Qwen/Qwen3-8B-FP8", 1, 90080, 5630, 5172),
    ]
    assert ("unsplit token counts, by whether they are whole KV blocks of shardwise's layout: whole blocks 19, "
            "no block count 1, undecided 2" in scoreboard(LOGS).splitlines())
#: vllm#32105 (set 19): GLM-4.7-FP8 at PP8 on A100-80GB, 202,752 tokens, 0.925, a 0.15.0 nightly: refused at 28.57 GiB
A100_GLM47_PP8 = next(lg for lg in LOGS if lg.url == "https://github.com/vllm-project/vllm/issues/32105")


def test_pp_releases_0_14_to_0_16_check_one_request_against_every_stage_of_the_model():
    # get_kv_cache_configs merges the KV cache specs of all eight stages into global groups and checks one
    # 202,752-token request of all 92 layers (71.16 GiB, the figure vLLM's error gives) against the smallest stage's
    # budget; 0.13.0 and 0.17.0 check each stage's own 11-12 layers (9.28 GiB), which fit
    def at(release: str) -> tuple[bool, float]:
        s = score(dataclasses.replace(A100_GLM47_PP8, release=release)).sized
        return s.starts, round(s.needed_kv_gib, 2)

    assert [at(r) for r in ("0.13.0", "0.14.0", "0.15.0", "0.16.0", "0.17.0")] == [
        (True, 9.28), (False, 71.16), (False, 71.16), (False, 71.16), (True, 9.28)]
    s = score(A100_GLM47_PP8).sized
    assert (round(s.available_kv_gib, 2), A100_GLM47_PP8.kv_gib) == (29.94, 28.57)
    # --max-model-len auto fits the whole model's cache into one stage's budget there too (vLLM's estimate at its
    # 28.57 GiB: 81,392 tokens)
    auto = dataclasses.replace(A100_GLM47_PP8, settings=dataclasses.replace(A100_GLM47_PP8.settings,
                                                                            max_model_len="auto"))
    assert [score(dataclasses.replace(auto, release=r)).sized.max_model_len for r in ("0.15.0", "0.17.0")] == [
        85312, 202752]


#: LMCache#1739 (set 19): vLLM 0.10.2, Qwen3-14B on one A100-40GB, 32,768 tokens, defaults otherwise (the install not said)
A100_QWEN3_14B_0102 = next(lg for lg in LOGS if lg.url == "https://github.com/LMCache/LMCache/issues/1739")


def test_the_0_10_2_a100_qwen3_14b_run_reads_as_a_pip_install():
    # as the official image runs 0.10.2 (FlashInfer's sampler over 256 x 151,936 logits) the cache is 7.21 GiB and
    # 47,264 tokens, inside the KV tolerance of the logged 6.51 GiB; as a pip install (0.10.2's wheel brings no
    # FlashInfer: PyTorch's sort, 0.8 GiB more) 6.41 GiB and 42,000 tokens, 1.5 % under the logged 42,656
    def sized(pip: bool) -> tuple[float, int]:
        s = score(dataclasses.replace(A100_QWEN3_14B_0102, settings=dataclasses.replace(
            A100_QWEN3_14B_0102.settings, pip_install=pip))).sized
        return round(s.available_kv_gib, 2), s.kv_cache_tokens

    assert (sized(False), sized(True)) == ((7.21, 47264), (6.41, 42000))
    assert score(A100_QWEN3_14B_0102).kv_within


@pytest.mark.xfail(strict=True, reason=(
    "open miss (the install is not in the source): 47,264 tokens against 42,656 (+10.8 %) with vLLM 0.10.2 as the "
    "official image runs it; LMCache 0.3.6 is installed beside vLLM with pip, and as a pip install the row gives "
    "42,000 (-1.5 %), but the thread does not say how vLLM was installed and the row was not changed after scoring"))
def test_the_0_10_2_a100_qwen3_14b_run_is_within_5_percent_of_its_token_count():
    assert score(A100_QWEN3_14B_0102).tokens_within_5pct


#: Set 20: the Qwen3-4B-shaped checkpoint on the same RTX 5060 Ti (Docker on Windows): 0.29.0 at 0.70 (official image,
#: compiled cold), 0.30.0 at 0.70 (Xinference, compile cache warm) and 0.30.0 at 0.9 (the same, compiled cold)
#: Set 20's three starts of one Typhoon 2.5 (Qwen3-4B) checkpoint on an RTX 5060 Ti (set 26's 0.11.0 row on the card is
#: another model)
RTX_5060_TI = [lg for lg in LOGS if lg.gpu == "RTX 5060 Ti" and lg.model.id == "Qwen/Qwen3-4B-Instruct-2507"]


def test_the_rtx_5060_ti_rows_differ_by_the_compile_cache_not_by_the_release():
    # shardwise's budget for the three starts, against what vLLM kept: the warm 0.30.0 start is reproduced within
    # 0.06 GiB; the two cold starts, one per release, kept 1.23 GiB more (0.30.0's breakdown lines: 0.53 GiB of peak
    # activation and 0.25 of non-torch memory warm, 1.09 and 0.95 cold). From tokens33 the cold starts' profile peak is
    # the compile's, one copy of the 151,936 x 2,560 embedding (0.72 GiB, sizing.cold_compile_gib) where the forward
    # pass and sampler reach 0.14: 0.58 GiB of the 1.23. The other 0.70 is the cold start's non-torch memory on this
    # WSL2 host (the 0.26.0 A40 rows on Linux compile cold with 0.08 GiB of it), not charged: strict open misses.
    # tokens14: from 0.28 V2's greedy profile keeps no float32 copy of the logits (0.08 GiB of sampler, was 0.22), so
    # the warm start's peak, the forward's 0.14 + the flat 0.40 of graphs, is 0.54 against the 0.53 "peak activation"
    # it logged (0.63 before); what it misses now is on the consumed side: 7.82 (weights 7.55, non-torch 0.12, penalty
    # buffers 0.15) against 7.89 logged with 7.64 of weights.
    rows = [(lg.release, lg.settings.gpu_memory_utilization, lg.compile, round(score(lg).sized.activation_gib_per_gpu, 2),
             round(score(lg).sized.available_kv_gib, 2), lg.kv_gib, score(lg).sized.kv_cache_tokens, lg.tokens)
            for lg in RTX_5060_TI]
    assert rows == [("0.29.0", 0.7, "cold", 0.72, 2.18, 1.45, 15872, 10576),
                    ("0.30.0", 0.7, "warm", 0.14, 2.77, 2.71, 20128, 19744),
                    ("0.30.0", 0.9, "cold", 0.72, 5.36, 4.63, 39024, 33728)]
    assert [score(lg).kv_within for lg in RTX_5060_TI] == [False, True, False]
    assert [round(kv - logged, 2) for _, _, _, _, kv, logged, _, _ in rows] == [0.73, 0.06, 0.73]


#: justuswilhelm/pufferfish (set 20): gemma-4-E4B-it on an RTX 3090 Ti, 0.22.1 official image, 32,768 tokens, 0.9
GEMMA4_E4B_3090TI = next(lg for lg in LOGS if lg.gpu == "RTX 3090 Ti")


def test_the_0_22_1_gemma4_e4b_run_is_within_5_percent_of_its_token_count():
    # an open miss until tokens33 (240,263 tokens, +7.1 %, 4.39 GiB of cache), which charged the compile's copy of the
    # 262,144 x 2,560 embedding (1.25 GiB; 227,853 tokens). toksingle10: a multimodal run hands its compiled graph
    # embeddings, not token ids, so no copy is charged (the forward pass's 1.02 GiB is the peak), and the weights are
    # Gemma 4's as vLLM builds them, its second, 512-wide rotary cache included (15.09 GiB against 15.18 logged; 14.96
    # before): 233,423 tokens, +4.0 %
    sc = score(GEMMA4_E4B_3090TI)
    assert (round(sc.sized.weights_gib_per_gpu, 2), round(sc.sized.activation_gib_per_gpu, 2),
            round(sc.sized.available_kv_gib, 2), sc.sized.kv_cache_tokens) == (15.09, 1.02, 4.27, 233423)
    assert (sc.weights_within, sc.kv_within, sc.tokens_within_5pct) == (True, True, True)


def test_every_token_count_outside_5_percent_has_one_cause():
    # tokens34: each of the rows outside 5 % (24, and set 21's four) sorted into one class of startup_logs.MISS_CAUSES with the evidence its
    # own lines and vLLM's source give (docs/capacity-model.md, 'Token counts outside 5 %, by class'); a row that comes
    # within 5 %, or a new miss, fails here until the table says so
    misses = {row_key(lg) for lg in LOGS if score(lg).tokens_within_5pct is False}
    assert misses == set(MISS_ROWS)
    assert set(MISS_ROWS.values()) == set(MISS_CAUSES)
    counts = {name: list(MISS_ROWS.values()).count(name) for name in MISS_CAUSES}
    # toksingle10: Gemma 4's weights as vLLM builds them and no cold-compile copy for a run that embeds its tokens
    # outside the graph bring six rows within (pcie-tp4's, weights-format's NVFP4, compile-state-unread's,
    # gemma4-e-weights', one gemma4-cold-peak and one v2-moe-0.29 row, so three classes are gone) and move six out:
    # four text-only FP8-dynamic 26B-A4B rows (v2-moe-0.29), two quantised Gemma 4 rows (gemma4-quantised-weights)
    # set 25: the two-Spark MiniMax-M2.7 AWQ start (+58.5 %, 16.67 GiB more cache than logged) joins unified-memory
    # set 26: the RTX 5090's three cold 0.28.0 starts join sm120-cold-nontorch, its warm-profiled one
    # compile-state-by-run, the 0.28.0 E4B QAT pair gemma4-quantised-weights, the 0.11.0 pip RTX 5060 Ti row pip-sort
    # tokens18: set 23's RedHatAI Qwen3.5-4B FP8-dynamic pair leaves hybrid-fp8-unread (llm-compressor's ignore list)
    # tokens36: 0.29+ loads the E-series QAT exports' own LM head untied (ModelShape.distinct_lm_head): the 0.30.0 E4B
    # L4 row leaves gemma4-quantised-weights
    # set 27: kthxo/distserving's later RTX 4090 start of the 0.24.0 Qwen3-8B command (43,888 tokens) joins
    # compile-state-by-run
    # set 28: TheBuccaneer/vllm-offload-profiles' 0.49 GiB start of Qwen2.5-7B at 0.65 on an RTX 3090 (9,088 tokens), whose
    # same command was refused four minutes later with 0.41 GiB, opens small-budget-by-run
    # tokens38: the Qwen3.8 NVFP4 pre-release starts with prefix caching on: the two language-model-only starts leave
    # hybrid-fp8-unread, the --max-num-seqs 8 start joins it
    # set 29: ai-infra-lab's --kv-cache-dtype fp8 start of Qwen3.5-4B-FP8 at 128K on the RTX 5090 (0.29.0, +5.3 %)
    # joins sm120-cold-nontorch: its auto-dtype twins of set 23 are +2.75 %, and it holds ~0.48 GiB more than they do
    # tokens39: the fused-MoE caches are held through the sampler run (the modular kernel's WorkspaceManager buffer):
    # the four text-only Gemma 4 26B-A4B FP8-dynamic rows leave v2-moe-0.29
    # tokens41: sized on the V1 runner vLLM 0.25 - 0.28 run a dense hybrid on, the Qwen3.8 NVFP4 pre-release's four
    # starts are all under (-10.3 to -12.5 %, 0.39 - 0.67 GiB), the two language-model-only ones out again: with the
    # tower and --max-num-seqs 8 starts they leave hybrid-fp8-unread for nvfp4-prerelease-weights (the build's weights
    # inferred from its byte count, its usable memory not logged)
    assert counts == {"wsl2-cold-compile": 2, "wsl2-profile-transient": 2, "v2-moe-0.29": 4,
                      "large-tp-communicators": 2, "pip-sort": 2, "install-unknown": 2, "weights-format": 1,
                      "unified-memory": 2, "pp-rtx-pro-6000": 2, "profile-peak-0.15": 1, "source-ambiguous": 1,
                      "hybrid-fp8-unread": 1, "nvfp4-prerelease-weights": 4, "spec-drafter": 1, "sm120-cold-nontorch": 9,  # two set 26 rows, one key
                      "gemma4-cold-peak": 1,
                      "gemma4-quantised-weights": 4, "qwen38-awq-3090": 3, "text-only-warm-restart": 1,
                      "compile-state-by-run": 3, "small-budget-by-run": 1}
    assert ("token counts outside 5 %, by cause: wsl2-cold-compile 2, wsl2-profile-transient 2, v2-moe-0.29 4, "
            "large-tp-communicators 2, pip-sort 2, install-unknown 2, weights-format 1, unified-memory 2, "
            "pp-rtx-pro-6000 2, profile-peak-0.15 1, source-ambiguous 1, hybrid-fp8-unread 1, nvfp4-prerelease-weights 4, "
            "spec-drafter 1, "
            "sm120-cold-nontorch 10, gemma4-cold-peak 1, gemma4-quantised-weights 4, "
            "qwen38-awq-3090 3, "
            "text-only-warm-restart 1, compile-state-by-run 3, small-budget-by-run 1") in scoreboard(LOGS).splitlines()


MISSES = [lg for lg in LOGS if miss_cause(lg)]


@pytest.mark.parametrize("log", [
    pytest.param(lg, id=f"{miss_cause(lg)}-{lg.release}-{lg.model.id.rsplit('/', 1)[-1]}-tp{lg.settings.tp}"
                        f"pp{lg.settings.pp}dp{lg.settings.dp}-{lg.settings.kv_cache_dtype}",
                 marks=[pytest.mark.xfail(strict=True, reason=(
                     f"{miss_cause(lg)}: {MISS_CAUSES[miss_cause(lg)][0]}; decided by: "
                     f"{MISS_CAUSES[miss_cause(lg)][1]}"))])
    for lg in MISSES])
def test_the_token_count_is_within_5_percent_of_the_logged_one(log):
    # every classed miss is a strict xfail naming its class and what would decide it: a term that brings a row in
    # makes it pass, and the table above has to move it
    assert score(log).tokens_within_5pct


def test_the_token_misses_by_cause_print_their_token_error_and_budget_residual():
    # the bench's table by cause (benchmarks/bench_startup_logs.py): a term's before/after shows per class here
    assert cause_table(LOGS).splitlines() == [
        "cause                    rows tokens % min     max  GiB min     max",
        "wsl2-cold-compile           2        +15.7   +50.1    +0.73   +0.73",
        "wsl2-profile-transient      2         -8.1   +20.4    -1.01   +1.12",
        "v2-moe-0.29                 4         -6.7   +31.0    -0.85   +0.74",
        "large-tp-communicators      2         +5.6   +10.9    +2.68   +9.04",
        "pip-sort                    2        -13.6    +5.2    -0.26   +0.33",
        "install-unknown             2        +10.8   +41.9    +0.70   +3.36",
        "weights-format              1         +5.2    +5.2    +0.32   +0.32",
        "unified-memory              2        +14.1   +57.9    +1.82  +16.50",
        "pp-rtx-pro-6000             2        +11.2   +11.8    +0.81   +2.85",
        "profile-peak-0.15           1         +6.5    +6.5    +0.33   +0.33",
        "source-ambiguous            1        -55.0   -55.0   -39.09  -39.09",
        "hybrid-fp8-unread           1        +13.0   +13.0    +0.65   +0.65",
        "nvfp4-prerelease-weights    4        -12.5   -10.3    -0.67   -0.39",
        "spec-drafter                1        +10.6   +10.6    +1.28   +1.28",
        "sm120-cold-nontorch        10         +5.3   +75.4    +1.03   +1.77",
        "gemma4-cold-peak            1         +8.6    +8.6    +0.25   +0.25",
        "gemma4-quantised-weights    4         +5.2   +12.8    +0.22   +0.96",
        "qwen38-awq-3090             3        -11.8   +10.7    -1.05   +0.43",
        "text-only-warm-restart      1       -100.0  -100.0    -0.25   -0.25",
        "compile-state-by-run        3        -25.7   -10.8    -1.12   -0.77",
        "small-budget-by-run         1        -15.1   -15.1    -0.07   -0.07",
    ]


#: Set 21: PCIe pairs of GeForce cards at TP2, whose rows do not give ``nvlink_domain``
RTX_4090_PAIR = next(lg for lg in LOGS if lg.url == "https://github.com/vllm-project/vllm/pull/54479")
RTX_3090_PAIR = next(lg for lg in LOGS if lg.url == "https://github.com/mitchross/talos-argocd-proxmox/pull/1995")


def test_a_row_without_a_domain_takes_the_catalogs_and_a_geforce_pair_gets_no_nvlink_buffers():
    # the catalog's domain where the row gives none (RTX 4090 and RTX 3090 are PCIe cards: 1; H100 an HGX board: 8),
    # the row's own where it gives one, unknown where the catalog lacks the GPU
    assert [nvlink_domain(lg) for lg in (RTX_4090_PAIR, RTX_3090_PAIR)] == [1, 1]
    assert {nvlink_domain(lg) for lg in LOGS if lg.nvlink_domain is None and lg.gpu == "H100"} == {8}
    assert nvlink_domain(dataclasses.replace(RTX_4090_PAIR, nvlink_domain=2)) == 2
    assert nvlink_domain(dataclasses.replace(RTX_4090_PAIR, gpu="RTX 5060 Ti")) is None
    # the 0.28.0 pair: 0.22 GiB of non-torch memory, not the 2.22 an NVLink pair of 0.19+ counts; within tolerance
    sc = score(RTX_4090_PAIR)
    assert (round(sc.sized.non_torch_gib_per_gpu, 2), round(sc.sized.available_kv_gib, 2), sc.sized.kv_cache_tokens,
            sc.tokens_from_logged_kv) == (0.22, 10.61, 86896, 85025)
    assert (sc.kv_within, sc.tokens_within_5pct) == (True, True)
    # sized as an NVLink pair (the harness before set 21) it was 1.77 GiB low (2.22 GiB of non-torch memory); from
    # logs26 an Ada card counts no 0.19+ TP term whatever its domain (no FlashInfer all-reduce fusion below 9.0)
    nvl = sizing.size_deployment(RTX_4090_PAIR.model, sizing.Device("RTX 4090", 23.99, "nvidia", "ada", None),
                                 RTX_4090_PAIR.settings, "0.28.0")
    assert (round(nvl.non_torch_gib_per_gpu, 2), round(nvl.available_kv_gib - RTX_4090_PAIR.kv_gib, 2)) == (0.22, 0.23)


def test_the_0_27_1_qwen3_8_fp8_pair_is_within_tolerance():
    # an open miss until tokens41 (6.04 GiB against 4.99, +1.05 over the 0.87 tolerance): 0.27.1 runs this dense hybrid
    # on the V1 runner (Behaviour.v2_skips_state_models), whose CUDA graphs keep the flat 0.40 GiB term in the budget
    # (0.06 on V2); at two sequences the sampler is 0.09 GiB on either runner: 5.64 GiB, +0.65
    assert score(RTX_3090_PAIR).kv_within


def test_the_0_27_1_qwen3_8_fp8_pair_is_a_budget_miss():
    sc = score(RTX_3090_PAIR)
    assert (round(sc.sized.weights_gib_per_gpu, 2), round(sc.sized.activation_gib_per_gpu, 2),
            round(sc.sized.encoder_gib_per_gpu, 2), round(sc.sized.available_kv_gib, 2), sc.sized.kv_cache_tokens,
            sc.tokens_from_logged_kv, sc.miss_class) == (14.26, 1.17, 1.17, 5.64, 342243, 302847, "budget")
    # (toksingle10: the peak 1.17, the encoder's, where the cold compile's copy of the embedding, 1.18, was charged: a
    # multimodal run with a modality on hands its compiled graph embeddings, sizing.mm_inputs_embedded)
    # tokens41: on the V1 runner (0.27.1 runs a dense hybrid there) the flat 0.40 GiB graph term is in the budget: 6.04 ->
    # 5.64 GiB, 367,001 -> 342,243 tokens (+21.2 -> +13.0 %): the budget within the KV tolerance, the count still out
    assert round(sc.sized.cudagraph_gib_per_gpu, 2) == 0.40


#: Set 21: akamaslabs study 30's probes on one L40S at 0.29.0 that set 12 left out: fp8 KV (K-fp8) and a separate
#: assistant drafter with two speculative tokens (M-mtp2; --spec-model=google/gemma-4-26B-A4B-it-assistant)
L40S_K_FP8, L40S_M_MTP2 = (next(lg for lg in LOGS if lg.url.endswith(f"/probe/results/{name}.log"))
                           for name in ("K-fp8", "M-mtp2"))


def test_the_0_29_0_gemma4_fp8_kv_probe_is_within_5_percent():
    # 127,897 tokens (13.46 GiB) until toksingle10, with the 1.02 GiB vision tower that vLLM does not build under
    # --language-model-only counted in the weights (25.34 GiB against 24.72 logged) and Gemma 4's second rotary cache
    # not: with both as vLLM has them (24.58 GiB) the budget held 0.79 GiB more than the logged 13.44, which the
    # tower had been standing in for (a "v2-moe-0.29" row); the layout is right (127,661 from the logged budget).
    # tokens39: the fused-MoE caches stay in the shared workspace buffer through the sampler run
    # (Behaviour.moe_workspace_persists): 14.23 -> 14.08 GiB, 135,127 -> 133,698 tokens (+5.9 -> +4.8 %)
    sc = score(L40S_K_FP8)
    assert (round(sc.sized.weights_gib_per_gpu, 2), round(sc.sized.available_kv_gib, 2), sc.sized.kv_cache_tokens,
            sc.tokens_from_logged_kv) == (24.58, 14.08, 133698, 127661)
    assert (sc.weights_within, sc.kv_within, sc.tokens_within_5pct, sc.miss_class) == (True, True, True, "")


def test_the_0_29_0_gemma4_assistant_drafter_probe_is_a_budget_miss_inside_its_band():
    # the drafter is a separate checkpoint (``speculative_config.model``), not MTP layers of the target: its weights are
    # charged from its config.json (419,692,544 parameters in bf16, 0.78 GiB: vLLM loaded 25.5 GiB against 24.72
    # without it; shardwise's 26.12 against 25.34), its KV-shared layers add no bytes a token. Its CUDA graphs are not
    # charged (0.93 GiB of graph estimate against 0.50: 0.92 - 0.8990 and 0.92 - 0.9087 of 44.42 GiB), and 0.24 GiB
    # more is not attributed. The layout is right (the logged 12.02 GiB give 57,086 tokens against 57,065): the
    # 0.66 GiB left are the budget's. Blind (before spec45): 25.34, 13.46, 63,947 tokens (+12.1 %). toksingle10: the
    # target's tower, which --language-model-only leaves unbuilt, is out and Gemma 4's second rotary cache in (25.36
    # GiB against the 25.5 logged, 26.12 before), so 1.42 GiB are the budget's (12.68 GiB and 60,236 tokens before)
    # tokens39: the fused-MoE caches held through the sampler run take 0.15 GiB more (13.44 GiB, 63,851 tokens before)
    sc = score(L40S_M_MTP2)
    assert (round(sc.sized.weights_gib_per_gpu, 2), round(sc.sized.available_kv_gib, 2), sc.sized.kv_cache_tokens,
            sc.tokens_from_logged_kv, sc.miss_class) == (25.36, 13.29, 63135, 57085, "budget")
    assert (sc.weights_within, sc.kv_within, sc.tokens_within_band) == (True, True, True)


@pytest.mark.xfail(strict=True, reason=(
    "open miss (budget): 63,851 tokens against 57,065 (+11.9 %), 13.44 GiB of cache against 12.02, inside the band. "
    "The drafter's weights are charged (google/gemma-4-26B-A4B-it-assistant, 0.78 GiB; +12.1 % before); its CUDA "
    "graphs, which 0.29's Model Runner V2 measures into the budget (about 0.43 GiB more estimate than without it), "
    "are not, and 0.99 GiB is not attributed (0.24 before toksingle10 took out the tower --language-model-only leaves "
    "unbuilt): one log pair cannot tell a graph term from a fit"))
def test_the_0_29_0_gemma4_assistant_drafter_probe_is_within_5_percent_of_its_token_count():
    assert score(L40S_M_MTP2).tokens_within_5pct


#: Set 21: akamaslabs study 28's kernel probes, Qwen3-8B-FP8 on one 1g.16gb MIG slice (15.66 GiB) of an RTX PRO 4500
#: Blackwell at 0.29.0, both compiling cold: KV auto with FLASH_ATTN (A-auto) and fp8 KV with FlashInfer (K-fi-fp8)
MIG_A_AUTO, MIG_K_FI_FP8 = (next(lg for lg in LOGS if lg.url.endswith(f"/kernel-probe/results/{name}.log"))
                            for name in ("A-auto", "K-fi-fp8"))


def test_the_0_29_0_mig_slice_probes_are_budget_misses_of_the_non_torch_memory():
    # the weights and the layout are right (8.80 GiB against 8.88; the logged 2.24 and 1.98 GiB give 16,307 and 28,828
    # tokens against 16,288 and 28,784), and the cold compile's peak is too: one copy of Qwen3-8B's 151,936 x 4,096
    # embedding, 1.16 GiB, where the log's peak activation less its CUDA-graph estimate is 1.69 - 0.55 = 1.95 - 0.81 =
    # 1.14. What the budget misses is the non-torch memory: "10.16 GiB for consumed memory (weights + non-torch)" less
    # 8.88 of weights is 1.28 GiB, against the 0.12 charged
    for lg, tokens, logged in ((MIG_A_AUTO, 25248, 16307), (MIG_K_FI_FP8, 50496, 28828)):
        sc = score(lg)
        assert (round(sc.sized.weights_gib_per_gpu, 2), round(sc.sized.activation_gib_per_gpu, 2),
                sc.sized.non_torch_gib_per_gpu, round(sc.sized.available_kv_gib, 2), sc.sized.kv_cache_tokens,
                sc.tokens_from_logged_kv, sc.miss_class) == (8.8, 1.16, 0.12, 3.47, tokens, logged, "budget")
        assert (sc.verdict_right, sc.weights_within, sc.kv_within, sc.tokens_within_band) == (True, True, False, False)
    assert round(10.16 - MIG_A_AUTO.weights_gib, 2) == 1.28


@pytest.mark.xfail(strict=True, reason=(
    "open miss (budget): 3.47 GiB of cache against 2.24 and 1.98 logged (+1.23, +1.49). The start holds 1.28 GiB of "
    "non-torch memory against the 0.12 charged; not attributed: both compile cold (set 20's cold RTX 5060 Ti rows, the "
    "other sm_120 card of the sets, under WSL2, hold 0.70 GiB more than their warm start; set 20's cold A40 rows on Linux "
    "0.08), and the candidates are the cold compile on sm_120 and the MIG slice (not the DeepGEMM kernel: the study's "
    "L-cutlass probe, CUTLASS block-scaled FP8 on the same slice, logs 10.11 GiB of weights and non-torch memory); "
    "FlashInfer's larger CUDA-graph estimate (0.81 against 0.55 GiB) is the rest of K-fi-fp8's. To be measured on a GPU"))
def test_the_0_29_0_mig_slice_probes_are_within_tolerance():
    assert all(score(lg).kv_within for lg in (MIG_A_AUTO, MIG_K_FI_FP8))


#: Set 21: akamaslabs study 31's smoke start, the study 30 Gemma-4-26B-A4B FP8 deployment on one L40S at 0.29.0 with
#: 16,384 tokens, text only (--language-model-only), compiling cold
L40S_GEMMA4_16K = next(lg for lg in LOGS if "/studies/31-l40s-gemma4-26b-tps-thinking/" in lg.url)


def test_the_0_29_0_gemma4_l40s_start_at_16k_tokens_is_within_5_percent():
    # 170,727 tokens (13.46 GiB) until toksingle10, the unbuilt 1.02 GiB tower counted in the weights (the K-fp8 probe
    # above); then 14.23 GiB against the 13.47 logged, +5.6 %; the layout is right (170,793 from the logged budget).
    # tokens39: the fused-MoE caches held through the sampler run: 14.08 GiB, 178,474 tokens, +4.5 %
    sc = score(L40S_GEMMA4_16K)
    assert (round(sc.sized.available_kv_gib, 2), sc.sized.kv_cache_tokens, sc.tokens_from_logged_kv) == (
        14.08, 178474, 170795)
    assert (sc.verdict_right, sc.weights_within, sc.kv_within, sc.tokens_within_5pct) == (True, True, True, True)


#: Set 24: ddiiwoong/newblog's default Qwen3-14B-AWQ start on one L4 at 0.28.0, logged on two runs
L4_AWQ_RUNS = [lg for lg in LOGS if lg.url.startswith("https://github.com/ddiiwoong/newblog/") and lg.gpu == "L4"
               and lg.settings.tp == lg.settings.pp == 1]


def test_the_0_28_0_l4_qwen3_14b_awq_runs_differ_by_the_compile_cache():
    # the same start (every flag default) logged 9.10 GiB and 59,632 tokens on one run, 10.33 and 67,696 on another;
    # the cold compile's profile peak (one copy of the 151,936 x 5,120 embedding) is the difference: sized cold
    # shardwise gives the first, sized warm the second, each within tolerance and 5 %
    assert [(lg.kv_gib, lg.tokens, lg.compile) for lg in L4_AWQ_RUNS] == [(9.10, 59632, ""), (10.33, 67696, "")]
    cold, later = L4_AWQ_RUNS
    warm = dataclasses.replace(later, settings=dataclasses.replace(later.settings, compile_cache="warm"))
    sized = [score(cold), score(later), score(warm)]
    assert [(round(sc.sized.available_kv_gib, 2), sc.sized.kv_cache_tokens, round(sc.sized.activation_gib_per_gpu, 3))
            for sc in sized] == [(9.21, 60368, 1.449), (9.21, 60368, 1.449), (10.4, 68176, 0.258)]
    assert [(sc.kv_within, sc.tokens_within_5pct) for sc in sized] == [(True, True), (False, False), (True, True)]
    assert miss_cause(later) == "compile-state-by-run" and not miss_cause(cold)


#: Set 27: kthxo/distserving's 0.24.0 Qwen3-8B starts at 0.92 and 32,768 tokens (pip, PyTorch sampler): two logs of
#: the same command on an RTX 4090, the first start on an RTX 5090 and its restart
KTHXO_QWEN3_8B = [lg for lg in LOGS if "kthxo/distserving" in lg.url and lg.model.id == "Qwen/Qwen3-8B"
                  and lg.settings.tp == 1 and lg.started]


def test_the_0_24_0_qwen3_8b_runs_differ_by_the_compile_cache_on_the_4090_as_on_the_5090():
    # the 4090 logs 36,992 and 43,888 tokens for one command, the 5090 89,040 at its first start and 95,936 at a
    # restart its author puts down to the compile cache: 6,896 tokens (0.95 GiB at 144 KiB a token) apart on both
    # cards; the cold compile's profile peak (one copy of the 151,936 x 4,096 embedding beside the forward pass) is
    # the difference shardwise charges, 37,280 / 44,016 and 89,600 / 96,352 tokens cold / warm
    assert [(lg.gpu, lg.tokens, lg.compile) for lg in KTHXO_QWEN3_8B] == [
        ("RTX 4090", 43888, ""), ("RTX 4090", 36992, ""), ("RTX 5090", 89040, "cold"), ("RTX 5090", 95936, "warm")]
    later, first, cold, warm = KTHXO_QWEN3_8B
    later_warm = dataclasses.replace(later, settings=dataclasses.replace(later.settings, compile_cache="warm"))
    sized = [score(lg) for lg in (first, later, later_warm, cold, warm)]
    assert [(round(sc.sized.available_kv_gib, 2), sc.sized.kv_cache_tokens) for sc in sized] == [
        (5.12, 37280), (5.12, 37280), (6.05, 44016), (12.31, 89600), (13.23, 96352)]
    assert [sc.tokens_within_5pct for sc in sized] == [True, False, True, True, True]
    assert first.tokens is not None and later.tokens is not None and cold.tokens is not None and warm.tokens is not None
    assert later.tokens - first.tokens == warm.tokens - cold.tokens == 6896
    assert miss_cause(later) == "compile-state-by-run" and not miss_cause(first)


#: Set 25: eugr/spark-vllm-docker#396, cyankiwi's MiniMax-M2.7 AWQ at TP2 over two DGX Sparks (0.29.1rc1), refused at
#: 0.80 and started at 0.85
SPARK_PAIR = [lg for lg in LOGS if lg.url == "https://github.com/eugr/spark-vllm-docker/issues/396"]


def test_the_0_29_1_two_spark_minimax_m2_7_awq_refusal_needs_the_cache_vllm_logged():
    # vLLM's refusal: "23.25 GiB KV cache is needed" for 196,608 tokens, 62 layers x 2 x 4 KV heads a rank x 128 x 2 B
    # = 126,976 B a token at TP2 (a 16-bit cache); shardwise's layout gives exactly that. Its budget keeps 16.4 - 16.6
    # GiB more than logged at both utilisations: the unified-memory class, open (startup_logs.MISS_CAUSES); tokens39's
    # fused-MoE caches held through the sampler run take 0.16 GiB of it (39.06 and 45.15 GiB before)
    refused, started = SPARK_PAIR
    s = score(refused).sized
    assert (s.kv_bytes_per_token_per_gpu, round(s.needed_kv_gib, 2), s.max_model_len) == (126976, 23.25, 196608)
    assert [(lg.started, s.starts, round(s.available_kv_gib, 2), lg.kv_gib)
            for lg, s in ((lg, score(lg).sized) for lg in SPARK_PAIR)] == [(False, True, 38.9, 22.5),
                                                                         (True, True, 44.98, 28.74)]
    assert [bool(lg.open_miss) for lg in SPARK_PAIR] == [True, True]
    assert [miss_cause(lg) for lg in SPARK_PAIR] == ["", "unified-memory"]


#: Set 25: vllm#17238, a Qwen2.5-32B-Instruct INT8 W8A16 checkpoint at TP2 on two RTX 3090s, 0.8.1, eager, 4,096 tokens
RTX3090_W8A16 = [lg for lg in LOGS if lg.url == "https://github.com/vllm-project/vllm/issues/17238"]


def test_the_0_8_1_rtx_3090_pair_starts_at_8_sequences_and_its_refusal_at_1024_stays_open():
    # refused at the default ("No available memory for the cache blocks"), started at 8. 0.8.0 - 0.8.3 default
    # max_num_seqs to 1,024 on every GPU (engine/arg_utils.py, logs30; 256 before 0.8.4 was wrong), so the profile
    # samples 1,024 rows: with the official image's FlashInfer sampler shardwise leaves 2.10 GiB of cache (2.34 GiB of
    # sampler), inside the band; with a pip install's PyTorch sort (5.56 GiB) the start is refused. The thread names
    # no install, so the refusal stays an open miss (the central estimate starts)
    assert [(lg.settings.max_num_seqs, lg.started) for lg in RTX3090_W8A16] == [(None, False), (8, True)]
    sized = [score(lg).sized for lg in RTX3090_W8A16]
    assert [(s.max_num_seqs, round(s.weights_gib_per_gpu, 2), round(s.sampler_gib_per_gpu, 2),
             round(s.available_kv_gib, 2), s.starts, s.verdict) for s in sized] == [
        (1024, 15.99, 2.34, 2.1, True, "may-refuse"), (8, 15.99, 0.04, 4.22, True, "starts")]
    pip = size(dataclasses.replace(RTX3090_W8A16[0], settings=dataclasses.replace(RTX3090_W8A16[0].settings,
                                                                                  pip_install=True)))
    assert (round(pip.sampler_gib_per_gpu, 2), round(pip.available_kv_gib, 2), pip.starts) == (5.56, -1.12, False)
    assert [score(lg).verdict_right for lg in RTX3090_W8A16] == [False, True]
    assert bool(RTX3090_W8A16[0].open_miss) and not RTX3090_W8A16[1].open_miss


#: Set 25: vllm#10511, youkaichao's memory-profiling sanity checks on an H100 (main between v0.6.4.post1 and v0.6.5, V0)
H100_LLAMA3_8B = [lg for lg in LOGS if lg.url == "https://github.com/vllm-project/vllm/pull/10511"]


def test_the_0_6_4_h100_llama_3_8b_sanity_runs_load_the_logged_weights():
    # 14.96 GiB at TP1 and 7.48 at TP2 logged; the TP1 budget 53.29 GiB logged against 54.86 modelled (within 2.85)
    assert [(lg.settings.tp, lg.weights_gib, round(score(lg).sized.weights_gib_per_gpu, 2), score(lg).weights_within)
            for lg in H100_LLAMA3_8B] == [(1, 14.96, 14.96, True), (2, 7.48, 7.48, True)]
    first = score(H100_LLAMA3_8B[0])
    assert (round(first.sized.available_kv_gib, 2), first.log.kv_gib, first.kv_within) == (54.86, 53.29, True)


#: Set 26: floSa/data-analyst-agent's L4 bench and Drolsey/syslab-server's RTX 5090, both on the 0.28.0 image
SET26_L4_QWEN_AWQ = [lg for lg in LOGS if lg.url.startswith("https://github.com/floSa/") and lg.model.id.startswith("Qwen/")]
SET26_RTX_5090 = [lg for lg in LOGS if lg.url.startswith("https://github.com/Drolsey/")]


def test_the_0_28_0_rtx_5090_cold_starts_keep_one_more_embedding_than_the_l4_cold_starts():
    # tokens16's question (b), a 0.28 cold start on an sm_120 card with the breakdown line: the RTX 5090's cold starts
    # (1.46 GiB of peak activation logged, the cold compile's copy of Qwen3's 151,936 x 5,120 embedding: 1.45 GiB) keep
    # 1.66 - 1.77 GiB more beside the cache than modelled, where the same release's cold starts on an L4 (sm_89, fresh
    # containers) keep 0.13 - 0.14; the same model's weights and non-torch memory are 18.62 GiB at its warm-profiled 0.70
    # start (0.33 GiB of peak) and 20.04 at its cold 0.85 start: one more copy of the embedding. No source line names
    # what allocates it (sm120-cold-nontorch, strict open misses), so no term is charged.
    assert [(lg.settings.gpu_memory_utilization, round(score(lg).sized.available_kv_gib - lg.kv_gib, 2))
            for lg in SET26_L4_QWEN_AWQ] == [(0.35, 0.13), (0.45, 0.14), (0.6, 0.14)]
    assert [score(lg).kv_within for lg in SET26_L4_QWEN_AWQ] == [True, True, True]
    assert [(lg.model.id, lg.settings.gpu_memory_utilization, round(score(lg).sized.available_kv_gib - lg.kv_gib, 2),
             miss_cause(lg)) for lg in SET26_RTX_5090] == [
        ("Qwen/Qwen3-32B-AWQ", 0.7, -0.77, "compile-state-by-run"),
        ("Qwen/Qwen3-32B-AWQ", 0.85, 1.77, "sm120-cold-nontorch"),
        ("Qwen/Qwen3-14B-AWQ", 0.7, 1.66, "sm120-cold-nontorch"),
        ("Qwen/Qwen3-14B-AWQ", 0.7, 1.66, "sm120-cold-nontorch")]
    assert round(20.04 - 18.62, 2) == 1.42 and round(151_936 * 5_120 * 2 / GIB, 2) == 1.45
    # the warm-profiled start sized warm: +0.32 GiB, its weights and non-torch memory 0.5 over those modelled
    warm = dataclasses.replace(SET26_RTX_5090[0].settings, compile_cache="warm")
    sized = sizing.size_deployment(SET26_RTX_5090[0].model, sizing.Device("RTX 5090", 31.36, "nvidia", "blackwell", 1, compute_capability=(12, 0)),
                                   warm, "0.28.0")
    assert (round(sized.available_kv_gib, 2), sized.kv_cache_tokens) == (3.32, 13600)


def _sm120(lg: object) -> bool:
    """A GeForce or RTX PRO Blackwell card (compute capability 12.0: RTX 5060 Ti, 5080, 5090, RTX PRO 4500 and 6000
    Blackwell), not a data-centre Blackwell (10.x) or a GB10 (12.1, unified memory)."""
    return getattr(lg, "arch", "") == "blackwell" and str(getattr(lg, "gpu", "")).upper().startswith("RTX")


def _compile_copy_readings() -> list[tuple[str, str, int, float | None, int | None, float, float, float, float]]:
    """Every one-stage sm_120 row whose start shardwise sizes with the cold compile's copy of the embedding (V1
    compiling, cache cold, token ids into the graph, 0.13+), with a logged budget (or one implied by its token count):
    the budget residual (shardwise less logged, GiB) as modelled (the copy is the floor of the profile's peak,
    ``sizing._profile``), on top of the forward pass ("sum": the warm profile's peak plus the copy) and as a second
    copy beside the peak ("second"), and the copy (one GPU's share: vocab x hidden x 2 B / TP)."""
    from shardwise.rules.vllm.versions import parse_version
    out = []
    for lg in LOGS:
        if not _sm120(lg) or lg.settings.pp > 1:
            continue
        version = parse_version(lg.release)
        assert version is not None
        copy = sizing.cold_compile_gib(version, "v1", lg.settings, DEFAULT_ESTIMATES, lg.model, 2.0)
        cold = score(lg).sized
        if not copy or lg.settings.enforce_eager or (lg.kv_gib is None and not lg.tokens):
            continue
        warm = size(dataclasses.replace(lg, settings=dataclasses.replace(lg.settings, compile_cache="warm")))
        logged = lg.kv_gib if lg.kv_gib is not None else cold.available_kv_gib * (lg.tokens or 0) / cold.kv_cache_tokens
        base = cold.available_kv_gib - logged
        on_top = base - (warm.activation_gib_per_gpu + copy - cold.activation_gib_per_gpu)
        out.append((lg.release, lg.model.id, lg.settings.tp, lg.settings.gpu_memory_utilization, lg.tokens,
                    round(copy, 2), round(base, 2), round(on_top, 2), round(base - copy, 2)))
    return out


def test_the_sm120_rows_rule_out_the_cold_compile_copy_on_top_of_the_forward_pass():
    # tokens17, issue 28: "on sm_120 the cold compile's embedding copy adds to the forward peak (sum, not max)",
    # tested on every one-stage sm_120 row sized with the copy. The sum takes only the warm profile's peak (0.12 - 0.35
    # GiB at these batches) off each one-GPU cold row's +0.54 - +1.77 GiB, and takes the 0.27.1 TP2 row, exact as
    # modelled, to -0.76 (-0.63 where the copy tops the forward pass and not the sampler; out of 5 % either way). A whole second copy beside the peak (tokens16's reading) brings every one-GPU
    # cold 0.28 - 0.30 row to +0.01 - +0.33 GiB, but the same TP2 row to -0.76 and the 0.28.0 Qwen3-32B-AWQ 0.70 start
    # (no compile state in its source, 0.33 GiB of peak logged) to -2.22 and a refusal: two sm_120 rows contradict it,
    # so neither reading is charged (docs/capacity-model.md, "The sm_120 rows, every one (tokens17)").
    assert _compile_copy_readings() == [
        # release, model, TP, utilisation, tokens logged, copy, as modelled, on top, a second copy (GiB)
        ("0.27.1", "Qwen/Qwen3-32B", 1, 0.426, None, 1.45, 1.69, 0.29, 0.24),
        ("0.27.1", "Qwen/Qwen3-32B", 2, 0.426, 67296, 0.72, -0.03, -0.76, -0.76),
        # tokens39: the fused-MoE caches held through the sampler run (1.26, 0.97, 0.97 and 0.72, 0.43, 0.43 before)
        ("0.27.1", "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", 4, 0.9, 621392, 0.29, 1.09, 0.96, 0.8),
        ("0.27.1", "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", 4, 0.9, 623696, 0.29, 0.55, 0.42, 0.26),
        ("0.29.0", "Qwen/Qwen3-4B-Instruct-2507", 1, 0.7, 10576, 0.72, 0.73, 0.59, 0.01),
        ("0.30.0", "Qwen/Qwen3-4B-Instruct-2507", 1, 0.9, 33728, 0.72, 0.73, 0.59, 0.01),
        ("0.29.0", "Qwen/Qwen3-8B-FP8", 1, 0.9, 16288, 1.16, 1.23, 1.04, 0.07),
        ("0.29.0", "Qwen/Qwen3-8B-FP8", 1, 0.9, 28784, 1.16, 1.49, 1.3, 0.33),
        ("0.29.0", "Qwen/Qwen3-4B-Instruct-2507", 1, None, None, 0.72, 0.94, 0.8, 0.22),
        ("0.29.0", "Qwen/Qwen3-4B-Instruct-2507", 1, None, None, 0.72, 0.94, 0.8, 0.22),
        ("0.29.0", "Qwen/Qwen3-4B-Instruct-2507", 1, None, 138064, 0.72, 0.94, 0.8, 0.22),
        ("0.29.0", "Qwen/Qwen3-4B-Instruct-2507-FP8", 1, None, 162144, 0.72, 1.02, 0.88, 0.29),
        ("0.29.0", "Qwen/Qwen3-4B-Instruct-2507-FP8", 1, None, 162144, 0.72, 1.02, 0.88, 0.29),
        # tokens44: Phi-4-mini's layers slide (262,144-token window, one block more a request), so the budget its
        # counts imply moves by 0.01 (1.26, 1.13, 0.12; 1.25, 1.13, 0.11; 1.27, 1.14, 0.12; 1.26, 1.13, 0.12 before)
        ("0.29.0", "microsoft/Phi-4-mini-instruct", 1, None, 151973, 1.14, 1.25, 1.12, 0.11),
        ("0.29.0", "microsoft/Phi-4-mini-instruct", 1, None, 152029, 1.14, 1.25, 1.12, 0.11),
        ("0.29.0", "RedHatAI/Phi-4-mini-instruct-FP8-dynamic", 1, None, 176489, 1.14, 1.26, 1.13, 0.11),
        ("0.29.0", "RedHatAI/Phi-4-mini-instruct-FP8-dynamic", 1, None, 176554, 1.14, 1.26, 1.13, 0.11),
        ("0.29.0", "ibm-granite/granite-4.0-h-micro", 1, None, 2143269, 0.38, 0.54, 0.43, 0.16),
        ("0.29.0", "ibm-granite/granite-4.0-h-micro", 1, None, 2600821, 0.38, 0.54, 0.43, 0.16),
        ("0.28.0", "Qwen/Qwen3-32B-AWQ", 1, 0.7, 12272, 1.45, -0.77, -1.12, -2.22),
        ("0.28.0", "Qwen/Qwen3-32B-AWQ", 1, 0.85, 21120, 1.45, 1.77, 1.42, 0.32),
        ("0.28.0", "Qwen/Qwen3-14B-AWQ", 1, 0.7, 60768, 1.45, 1.66, 1.41, 0.21),
        ("0.28.0", "Qwen/Qwen3-14B-AWQ", 1, 0.7, 60768, 1.45, 1.66, 1.41, 0.21),
        # set 27 (logs23): kthxo/distserving's 0.24.0 PyPI starts (PyTorch sampler) on sm_120 cards, within 0.10 GiB
        # as modelled, cold (the first RTX 5090 start) or of unstated state; the sum takes the TP2 Qwen3-32B start to
        # -0.82 and a second copy the cold one-GPU start to -1.08: the excess of the 0.28 - 0.30 cold sm_120 rows is
        # not there at 0.24.0
        ("0.24.0", "Qwen/Qwen3-8B", 1, 0.92, 89040, 1.16, 0.08, -0.16, -1.08),
        ("0.24.0", "Qwen/Qwen3-32B", 2, 0.92, 456944, 0.72, -0.1, -0.82, -0.82),
        ("0.24.0", "Qwen/Qwen3-8B", 2, 0.92, 1150112, 0.58, -0.04, -0.27, -0.61),
        ("0.24.0", "Qwen/Qwen3-8B", 2, 0.92, 1149216, 0.58, 0.02, -0.21, -0.55),
        ("0.24.0", "Qwen/Qwen3-8B", 2, 0.92, 298400, 0.58, -0.08, -0.31, -0.66)]
    # the rows the readings move are the cold ones the model sizes with the copy: every warm, eager and multimodal
    # sm_120 row (the 0.30.0 RTX 5060 Ti warm start, the eager 0.12.0 and 0.26.1 rows, Qwen3.5-4B and gemma-4-E4B,
    # whose compiled graph takes embeddings) is sized without it and is not in the list
    listed = {(r[0], r[1]) for r in _compile_copy_readings()}
    assert ("0.26.1", "Inferact/Qwen3.8-27B-NVFP4") not in listed and ("0.29.0", "Qwen/Qwen3.5-4B") not in listed
    assert ("0.29.0", "google/gemma-4-E4B-it") not in listed and ("0.12.0", "Qwen/Qwen3-30B-A3B-Instruct-2507") not in listed


def test_every_wrong_verdict_and_kv_miss_has_one_cause():
    # logs28 (issue 28): the 7 wrong verdicts and the 16 KV budgets outside tolerance, each in one class as its
    # open_miss, MISS_CAUSES or docs/capacity-model.md write it up; a row that comes right, or a new miss, fails here
    # until the table says so (tokens45: 14 -> 16, set 22's two Qwen3.8-27B-AWQ-BF16-INT4 TP2 rows once their weights
    # are read, qwen38-awq-3090)
    scores = [score(lg) for lg in LOGS]
    assert (sum(not sc.verdict_right for sc in scores), sum(sc.kv_within is False for sc in scores)) == (7, 16)
    misses = {verdict_key(sc.log) for sc in scores if not sc.verdict_right or sc.kv_within is False}
    assert misses == set(VERDICT_KV_ROWS)
    assert set(VERDICT_KV_ROWS.values()) <= set(MISS_CAUSES) | set(VERDICT_KV_CAUSES)
    assert set(VERDICT_KV_CAUSES) <= set(VERDICT_KV_ROWS.values())
    assert not set(VERDICT_KV_CAUSES) & set(MISS_CAUSES)


def test_the_verdict_and_kv_misses_by_cause_print_their_counts_and_budget_residual():
    # the bench's table (benchmarks/bench_startup_logs.py): rows, wrong verdicts, KV budgets outside tolerance and
    # shardwise's budget less the logged one; 8 of the 14 KV misses are cold starts on sm_120 cards (the RTX 5060 Ti
    # pair of wsl2-cold-compile, sm120-cold-nontorch's five) or one that may be (v2-dense-0.27, an RTX PRO 6000)
    assert verdict_kv_table(LOGS).splitlines() == [
        "cause                        rows verdict   KV  GiB min     max",
        "wsl2-cold-compile               2       0    2    +0.73   +0.73",
        "install-unknown                 1       0    1    +3.27   +3.27",
        "unified-memory                  3       1    3    +1.82  +16.40",
        "sm120-cold-nontorch             5       0    5    +1.23   +1.77",
        "qwen38-awq-3090                 2       0    2    -1.05   -1.05",
        "compile-state-by-run            1       0    1    -1.12   -1.12",
        "post-snapshot-communicators     2       2    0    +0.55   +0.55",
        "margin-after-sizing-0.14        1       1    0        -       -",
        "mamba-blocks-unread             1       1    0        -       -",
        "no-memory-line-0.8              1       1    0        -       -",
        "other-tenant                    1       1    0    -0.02   -0.02",
        "settings-not-in-source          1       0    1    -8.75   -8.75",
        "v2-dense-0.27                   1       0    1    +1.69   +1.69",
    ]
    assert ("wrong verdicts and KV budgets outside tolerance, by cause: wsl2-cold-compile 2, install-unknown 1, "
            "unified-memory 3, sm120-cold-nontorch 5, qwen38-awq-3090 2, compile-state-by-run 1, "
            "post-snapshot-communicators 2, "
            "margin-after-sizing-0.14 1, mamba-blocks-unread 1, no-memory-line-0.8 1, other-tenant 1, "
            "settings-not-in-source 1, v2-dense-0.27 1") in scoreboard(LOGS).splitlines()
