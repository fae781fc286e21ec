"""What vLLM builds for an encoder-only embedder (BERT, RoBERTa / XLM-R, ModernBERT, NomicBERT), from its config.json:
the parameters it allocates, the dtype it loads them in and the length it derives (rounds catalog20 and catalog22).

These are the first terms of a KV-free sizing; they are not used by the rules yet (the encoder stays undecided,
:mod:`..catalog.unsized`): the pooling runner's profile peak is not modelled and the judgement has no shape without a
KV cache. Read in the 0.11.1, 0.18.0 and 0.29.0 wheels, and for BERT's and RoBERTa's embeddings and pooler also in
0.21.0's sdist and the 0.31.0 and 0.34.0 wheels (docs/capacity-model.md, "Round catalog20"):

* Weights (``vllm/model_executor/models/bert.py``, ``roberta.py``, ``modernbert.py``). ``BertModel`` builds
  ``BertEmbedding``: word, position and token-type embeddings, each a ``VocabParallelEmbedding`` whose rows are
  padded to a multiple of 64 (``DEFAULT_VOCAB_PADDING_SIZE``, ``vocab_parallel_embedding.py``), and a LayerNorm with
  bias. ``RobertaModel`` / ``XLMRobertaModel`` build ``RobertaEmbedding``: the same, except that its position and
  token-type embeddings are unpadded ``nn.Embedding`` up to 0.21.0 and padded from 0.29.0
  (:data:`ROBERTA_PADDED_FROM`). Each encoder layer: a QKV projection, an output projection, an intermediate and an
  output dense layer, all with biases, and two LayerNorms with biases. The checkpoint's ``pooler.`` weights are
  skipped (``skip_prefixes=["pooler."]`` in 0.11.1 to 0.21.0, the mapper's ``{"pooler.": None}`` in 0.29.0 to
  0.34.0): an embedding model loads no pooler. ``BgeM3EmbeddingModel`` (0.18.0 on; named by ``--hf-overrides``,
  BAAI/bge-m3's own config.json says ``XLMRobertaModel``) adds ``sparse_linear`` (hidden -> 1) and
  ``colbert_linear`` (hidden -> hidden) in the pooling head's dtype, float32 by default (``ModelConfig.head_dtype``).
  ``ModernBertModel``: a word embedding (padded), a LayerNorm, per layer a QKV and an output projection, a gated MLP
  (hidden -> 2 x intermediate, intermediate -> hidden), an attention LayerNorm on every layer but the first
  (``nn.Identity`` there) and an MLP LayerNorm; a final LayerNorm. Its biases follow ``attention_bias``,
  ``mlp_bias`` and ``norm_bias`` (False where the config.json omits them: transformers' ``ModernBertConfig``
  defaults).
* ``NomicBertModel`` (``bert_with_rope.py``, round catalog22; the same tensors in the 0.11.1, 0.18.0, 0.29.0 and
  0.34.0 wheels): vLLM's ``NomicBertModelConfig`` (``model_executor/models/config.py``) maps the checkpoint's GPT-2
  style keys onto the body (``n_embd`` -> hidden, ``n_inner`` -> intermediate, ``n_layer`` -> layers), takes
  ``activation_function`` ``swiglu`` as a gated SiLU MLP and ``gelu`` as a plain one, and one bias flag for every
  linear (it asserts ``qkv_proj_bias == mlp_fc1_bias == mlp_fc2_bias``). ``BertWithRopeEmbedding``: a padded word
  embedding, a padded token-type one where ``type_vocab_size`` > 0, a LayerNorm with bias; no position embedding
  (rotary). Each layer: QKV and output projections, the MLP (gate and up stacked, then down) and two LayerNorms with
  bias; a layer ``i`` with ``i % moe_every_n_layers == 1`` holds ``NomicMoE`` instead: a bias-free router (hidden x
  experts), ``w1`` and ``w2`` of experts x intermediate x hidden each, and one bias of hidden. No pooler is built
  (``add_pooling_layer`` False; ``pooler`` weights are skipped). Its length is not :func:`max_len`'s: up to 0.21.0 a
  given ``--max-model-len`` is held to ``max_trained_positions`` (:func:`nomic_given_limit`); from 0.22.0
  ``NomicBertModelConfig`` leaves the length alone and it is any encoder's (:func:`max_len`, engine21), read where
  ``n_positions`` is given and any ``max_position_embeddings`` agrees (:func:`_nomic_generic`). gte's ``GteNewModel``
  and ``GteModel`` share the body but are not counted: their bias comes from ``getattr(config, "bias", True)`` on a
  remote-code config class that was not read.
* Dtype (``_resolve_auto_dtype``, ``vllm/config/model.py``, the same function in the three wheels): under
  ``--dtype auto`` a pooling model prefers float16 where the platform supports it (every CUDA GPU), and a float32
  checkpoint (or one whose config.json and safetensors metadata name no dtype: ``_find_dtype``'s float32) is
  downcast to the preferred dtype; a float16 or bfloat16 checkpoint keeps its own.
* Length (``_get_and_verify_max_len``): the smallest of the config's length keys (``max_position_embeddings``,
  ``n_positions``, ...), capped by ``tokenizer_config.json``'s ``model_max_length`` for a pooling model whose
  ``position_embedding_type`` is ``absolute`` (``ModelConfig.get_and_verify_max_len``), then replaced by
  ``sentence_bert_config.json``'s ``max_seq_length`` where the checkpoint has that file with both ``max_seq_length``
  and ``do_lower_case`` (``get_sentence_transformer_tokenizer_config``, ``vllm/transformers_utils/config.py``).
  vLLM subtracts no RoBERTa padding offset from the length: RoBERTa's positions start at ``pad_token_id + 1`` in
  the embedding's forward (``roberta.py``), and only
  ``JinaRobertaModelConfig`` (rotary XLM-R, ``position_embedding_type`` ``rotary``) adjusts a position count, its
  RoPE cache's, not the length.
"""

from __future__ import annotations

from typing import Any

#: ``DEFAULT_VOCAB_PADDING_SIZE`` (vocab_parallel_embedding.py, 64 in 0.11.1, 0.18.0 and 0.29.0)
EMBEDDING_PADDING = 64

#: architectures whose body is ``bert.py``'s ``BertModel`` with ``BertEmbedding`` or ``roberta.py``'s
#: ``RobertaEmbedding`` (the same tensors), loaded without the pooler
BERT_EMBEDDERS = frozenset({"BertModel", "RobertaModel", "XLMRobertaModel", "BgeM3EmbeddingModel"})
MODERNBERT_EMBEDDERS = frozenset({"ModernBertModel"})
#: ``bert_with_rope.py``'s rotary encoders whose weights are counted (round catalog22)
NOMIC_EMBEDDERS = frozenset({"NomicBertModel"})
#: the architectures vLLM builds from ``bert_with_rope.py`` (registry.py, 0.11.1 to 0.34.0), whose length vLLM derives
#: otherwise than BERT's (``NomicBertModelConfig``, ``GteNewModelConfig``, ``SnowflakeGteNewModelConfig``)
ROTARY_ENCODERS = frozenset({"NomicBertModel", "GteModel", "GteNewModel", "GteNewForSequenceClassification"})

#: the releases whose encoders were read: 0.11.1, 0.18.0, 0.21.0 (sdist), 0.29.0, 0.31.0 and 0.34.0 for BERT and
#: RoBERTa embeddings and the pooler, 0.11.1, 0.18.0 and 0.29.0 for the rest; the releases between are taken as the
#: same, except RoBERTa's embedding for the releases between 0.21.0 and 0.29.0 (no wheel of them here)
READ_FROM, READ_TO = (0, 11, 1), (0, 34, 0)
#: ``RobertaEmbedding`` builds its position and token-type embeddings as unpadded ``nn.Embedding`` up to this release
#: (0.11.1, 0.18.0, 0.21.0) and as padded ``VocabParallelEmbedding`` from the next (0.29.0, 0.31.0, 0.34.0)
ROBERTA_UNPADDED_TO, ROBERTA_PADDED_FROM = (0, 21, 999), (0, 29, 0)
#: ``BgeM3EmbeddingModel``: not in 0.11.1, in 0.18.0 and later (its heads in the pooling head's float32)
BGE_M3_FROM = (0, 18, 0)

#: the length keys ``_get_and_verify_max_len`` takes the smallest of (``possible_keys``, vllm/config/model.py)
_LENGTH_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
                "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len")

#: ``--dtype`` values and the dtype each names (``_STR_DTYPE_TO_TORCH_DTYPE``)
_DTYPE_FLAGS = {"half": "float16", "float16": "float16", "bfloat16": "bfloat16", "float": "float32",
                "float32": "float32"}
DTYPE_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4}


class EncoderShapeError(ValueError):
    """A config.json that is not one of the encoders modelled here, or lacks a key its weights need."""


def _pad(rows: int) -> int:
    return -(-rows // EMBEDDING_PADDING) * EMBEDDING_PADDING


def _int(cfg: dict[str, Any], key: str, default: int | None = None) -> int:
    value = cfg.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise EncoderShapeError(f"config.json has no usable {key!r} ({value!r})")
    return value


def architecture(cfg: dict[str, Any]) -> str:
    """The config's first architecture, which vLLM builds."""
    arch = cfg.get("architectures")
    if isinstance(arch, list) and arch and isinstance(arch[0], str):
        return arch[0]
    raise EncoderShapeError("config.json names no architecture")


def params(cfg: dict[str, Any], release: tuple[int, int, int], *, padded: bool = True) -> tuple[int, int]:
    """The parameters vLLM ``release`` allocates for an encoder embedder: (in the model dtype, in the pooling head's
    dtype). ``padded`` false counts the checkpoint's rows instead of the padded ones (the tensors the checkpoint
    holds, less the pooler vLLM skips). A release whose build of the architecture was not read raises."""
    arch = architecture(cfg)
    if not READ_FROM <= release[:3] <= READ_TO:
        raise EncoderShapeError(f"vLLM {'.'.join(map(str, release))}'s {arch} was not read (read: 0.11.1 to 0.34.0)")
    pad = _pad if padded else (lambda rows: rows)
    if arch in BERT_EMBEDDERS:
        h = _int(cfg, "hidden_size")
        inter = _int(cfg, "intermediate_size")
        layers = _int(cfg, "num_hidden_layers")
        positions, types = _int(cfg, "max_position_embeddings"), _int(cfg, "type_vocab_size", 2)
        if arch != "BertModel":  # RobertaEmbedding: nn.Embedding positions and token types before VocabParallel ones
            if ROBERTA_UNPADDED_TO < release[:3] < ROBERTA_PADDED_FROM:
                raise EncoderShapeError(f"vLLM {'.'.join(map(str, release))}'s RobertaEmbedding was not read (nn."
                                        "Embedding positions in 0.21.0, padded VocabParallelEmbedding ones in 0.29.0)")
            if release[:3] >= ROBERTA_PADDED_FROM:
                positions, types = pad(positions), pad(types)
        else:
            positions, types = pad(positions), pad(types)
        rows = pad(_int(cfg, "vocab_size")) + positions + types
        per_layer = (3 * h * h + 3 * h) + (h * h + h) + 2 * h + (h * inter + inter) + (inter * h + h) + 2 * h
        head = 0
        if arch == "BgeM3EmbeddingModel":
            if release[:3] < BGE_M3_FROM:
                raise EncoderShapeError(f"vLLM {'.'.join(map(str, release))} has no BgeM3EmbeddingModel that was read "
                                        "(0.11.1 has none; 0.18.0 has it)")
            head = (h + 1) + (h * h + h)
        return rows * h + 2 * h + layers * per_layer, head
    if arch in MODERNBERT_EMBEDDERS:
        h = _int(cfg, "hidden_size")
        inter = _int(cfg, "intermediate_size")
        layers = _int(cfg, "num_hidden_layers")
        # transformers' ModernBertConfig defaults the three biases to False
        norm = 2 * h if cfg.get("norm_bias", False) else h
        attn_bias = 4 * h if cfg.get("attention_bias", False) else 0
        mlp_bias = 2 * inter + h if cfg.get("mlp_bias", False) else 0
        per_layer = 4 * h * h + attn_bias + 3 * h * inter + mlp_bias + 2 * norm  # attention and MLP LayerNorms
        # the embeddings' LayerNorm and the final one; the first layer has no attention LayerNorm
        return pad(_int(cfg, "vocab_size")) * h + layers * per_layer + norm, 0
    if arch in NOMIC_EMBEDDERS:
        return _nomic_params(cfg, pad), 0
    raise EncoderShapeError(f"{arch} is not an encoder whose weights are modelled (BertModel, RobertaModel, "
                            "XLMRobertaModel, BgeM3EmbeddingModel, ModernBertModel, NomicBertModel)")


def _flag(cfg: dict[str, Any], key: str) -> bool:
    value = cfg.get(key)
    if not isinstance(value, bool):
        raise EncoderShapeError(f"config.json has no usable {key!r} ({value!r})")
    return value


def _nomic_params(cfg: dict[str, Any], pad: Any) -> int:
    """``NomicBertModel``'s parameters as ``bert_with_rope.py`` builds them from the keys ``NomicBertModelConfig``
    reads (each must be in the config.json: a remote-code class's default is not read here)."""
    h, inter, layers = _int(cfg, "n_embd"), _int(cfg, "n_inner"), _int(cfg, "n_layer")
    act = cfg.get("activation_function")
    if act not in ("swiglu", "gelu"):  # vLLM asserts one of the two
        raise EncoderShapeError(f"config.json's activation_function {act!r} is not one vLLM builds (swiglu, gelu)")
    bias = _flag(cfg, "qkv_proj_bias")
    if _flag(cfg, "mlp_fc1_bias") != bias or _flag(cfg, "mlp_fc2_bias") != bias:
        raise EncoderShapeError("config.json's qkv_proj_bias, mlp_fc1_bias and mlp_fc2_bias differ (vLLM asserts "
                                "they are equal)")
    types = _int(cfg, "type_vocab_size")
    embeddings = pad(_int(cfg, "vocab_size")) * h + (pad(types) * h if types > 0 else 0) + 2 * h
    attention = 3 * h * h + h * h + (4 * h if bias else 0)
    if act == "swiglu":  # gate_up_proj (2 x intermediate) and down_proj
        mlp = 3 * h * inter + ((2 * inter + h) if bias else 0)
    else:  # up_proj and down_proj
        mlp = 2 * h * inter + ((inter + h) if bias else 0)
    every_n = cfg.get("moe_every_n_layers")
    if every_n is None:
        # getattr(config, "moe_every_n_layers", 0): a config.json that names neither it nor experts is dense
        if cfg.get("num_experts") not in (None, 0):
            raise EncoderShapeError("config.json names num_experts but no moe_every_n_layers")
        every_n = 0
    every_n = _int({"moe_every_n_layers": every_n}, "moe_every_n_layers")
    moe_layers = sum(1 for i in range(layers) if every_n > 0 and i % every_n == 1)
    moe = 0
    if moe_layers:
        experts = _int(cfg, "num_experts")
        moe = h * experts + 2 * experts * inter * h + h  # router (no bias), w1, w2, the output bias
    norms = 4 * h  # attn_ln and mlp_ln, each with bias
    return embeddings + layers * (attention + norms) + (layers - moe_layers) * mlp + moe_layers * moe


def dtype(cfg: dict[str, Any], flag: str = "auto") -> str:
    """The dtype vLLM loads a pooling model's weights in on a CUDA GPU (``--dtype``; ``auto`` by default)."""
    flag = flag.lower()
    if flag != "auto":
        if flag not in _DTYPE_FLAGS:
            raise EncoderShapeError(f"--dtype {flag!r} is not one vLLM takes")
        return _DTYPE_FLAGS[flag]
    stored = cfg.get("torch_dtype", cfg.get("dtype"))
    if stored in ("float16", "bfloat16"):
        return str(stored)
    # float32, or none named (_find_dtype's float32 where the safetensors metadata, not read here, name none either):
    # downcast to the pooling model's float16
    return "float16"


def weights_bytes(cfg: dict[str, Any], release: tuple[int, int, int], flag: str = "auto") -> int:
    """The bytes of the weights vLLM ``release`` allocates: the body in :func:`dtype`, the pooling head's extra
    linears (BGE-M3's sparse and ColBERT ones) in float32."""
    body, head = params(cfg, release)
    return body * DTYPE_BYTES[dtype(cfg, flag)] + head * 4


#: ``NomicBertModelConfig`` holds a given ``--max-model-len`` to ``max_trained_positions`` up to this release (read in
#: 0.11.1, 0.18.0, 0.20.0 and 0.21.0; 0.22.0, 0.23.0, 0.25.1, 0.27.0, 0.29.0 and 0.34.0 do not)
NOMIC_HELD_TO = (0, 21, 999)
#: from 0.18.0 it sets the derived length to ``max_trained_positions`` itself (``derived_max_model_len_and_key``);
#: 0.11.1 sets ``max_position_embeddings`` to it and derives the smallest length key; 0.12 - 0.17 were not read
NOMIC_DERIVED_FROM = (0, 18, 0)


def nomic_given_limit(cfg: dict[str, Any], release: tuple[int, int, int]) -> int | None:
    """The length vLLM ``release`` holds a given ``--max-model-len`` of a ``NomicBertModel`` to, or None where that is
    not read here. ``NomicBertModelConfig`` (model_executor/models/config.py, 0.11.1 to 0.21.0), where a
    ``--max-model-len`` (or ``--hf-overrides``) is given, re-verifies it against ``max_trained_positions`` with
    ``sentence_bert_config.json``'s ``max_seq_length`` dropped and the position type ``rope`` (no tokenizer cap), so
    neither sibling file raises it; a RoPE factor of the config would multiply it and is not read here. The generic
    check (``get_and_verify_max_len``) runs before it and may refuse a smaller length (a ``sentence_bert_config.json``
    below it): a length above this one is refused for sure, one below it is not judged here."""
    if architecture(cfg) not in NOMIC_EMBEDDERS or not READ_FROM <= release[:3] <= NOMIC_HELD_TO:
        return None
    rope = cfg.get("rope_parameters")
    if cfg.get("rope_scaling") or (isinstance(rope, dict) and (
            "factor" in rope or any(isinstance(v, dict) and "factor" in v for v in rope.values()))):
        return None
    if cfg.get("position_embedding_type", "rope") == "absolute":
        return None
    trained = cfg.get("max_trained_positions")
    if isinstance(trained, bool) or not isinstance(trained, int) or trained <= 0:
        return None  # vLLM's getattr default (2,048) would apply on the remote-code class: not read
    # 0.11.1: max_position_embeddings := max_trained_positions, then the smallest length key
    keys = {k: cfg[k] for k in _LENGTH_KEYS if isinstance(cfg.get(k), int) and not isinstance(cfg.get(k), bool)}
    keys["max_position_embeddings"] = trained
    smallest = min(keys.values())
    if release[:3] >= NOMIC_DERIVED_FROM:
        return trained
    if release[:3] <= (0, 11, 999):
        return smallest
    return trained if trained == smallest else None  # 0.12 - 0.17: either rule, where they agree


#: from this release ``NomicBertModelConfig`` leaves the length alone (it only builds the rotary's parameters: the
#: 0.22.0 and 0.34.0 wheels' model_executor/models/config.py), so vLLM derives NomicBERT's as any encoder's
NOMIC_GENERIC_FROM = (0, 22, 0)


def _nomic_generic(cfg: dict[str, Any], release: tuple[int, int, int] | None) -> bool:
    """Whether vLLM ``release`` derives a ``NomicBertModel``'s length by the rule :func:`max_len` follows (0.22.0 on),
    and the config says what that rule reads: no RoPE factor (``_get_and_verify_max_len`` would multiply by it), and
    not ``n_positions`` beside a different ``max_position_embeddings``. nomic's remote-code ``NomicBertConfig`` is a
    ``GPT2Config``, whose ``attribute_map`` sends ``max_position_embeddings`` to ``n_positions``, so the two are one
    attribute and which of them the loaded config keeps (nomic-embed-text-v1.5's Hub file gained
    ``max_position_embeddings`` 2,048 beside ``n_positions`` 8,192: vllm-project/vllm#40130), or whether
    ``GPT2Config``'s default 1,024 outlives a lone ``max_position_embeddings``, is transformers' order of setting
    them, not read here: read only where ``n_positions`` is given and any ``max_position_embeddings`` agrees."""
    if release is None or architecture(cfg) not in NOMIC_EMBEDDERS or release[:3] < NOMIC_GENERIC_FROM:
        return False
    rope = cfg.get("rope_parameters")
    if cfg.get("rope_scaling") or (isinstance(rope, dict) and (
            "factor" in rope or any(isinstance(v, dict) and "factor" in v for v in rope.values()))):
        return False
    n, mpe = cfg.get("n_positions"), cfg.get("max_position_embeddings")
    return isinstance(n, int) and not isinstance(n, bool) and (mpe is None or mpe == n)


def max_len(cfg: dict[str, Any], sentence_config: dict[str, Any] | None = None,
            tokenizer_config: dict[str, Any] | None = None, release: tuple[int, int, int] | None = None) -> int:
    """The length vLLM derives for an encoder embedder under the pooling runner: the smallest length key of the
    config; capped by ``tokenizer_config.json``'s ``model_max_length`` where the positions are absolute (BERT and
    RoBERTa configs default ``position_embedding_type`` to ``absolute``; ModernBERT's has none); replaced by
    ``sentence_bert_config.json``'s ``max_seq_length`` where that file has it and ``do_lower_case``. A
    ``NomicBertModel`` follows it from 0.22.0 (``release``; :func:`_nomic_generic`), its positions rotary, so no
    tokenizer cap (its config names no ``position_embedding_type`` when vLLM derives the length: the ``rope`` default
    is set later, in ``NomicBertModelConfig``)."""
    if sentence_config and "max_seq_length" in sentence_config and "do_lower_case" in sentence_config:
        value = sentence_config["max_seq_length"]
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    if (architecture(cfg) in ROTARY_ENCODERS and not _nomic_generic(cfg, release)) or cfg.get("model_type") == "new":
        # NomicBertModelConfig holds the length to max_trained_positions up to 0.21.0 (nomic_given_limit); the gte
        # configs (GteNewModelConfig, and Alibaba-NLP's NewModel, whose rope_scaling vLLM would read) were not
        # followed: BERT's rule is not theirs
        raise EncoderShapeError(f"the length vLLM derives for {architecture(cfg)} is not read")
    found = [v for k in _LENGTH_KEYS if isinstance(v := cfg.get(k), int) and not isinstance(v, bool)]
    if not found:
        raise EncoderShapeError("config.json has no length key")
    length = min(found)
    absolute = cfg.get("position_embedding_type", "absolute" if architecture(cfg) in BERT_EMBEDDERS else "")
    cap = (tokenizer_config or {}).get("model_max_length")
    if absolute == "absolute" and isinstance(cap, int) and not isinstance(cap, bool):
        length = min(length, cap)
    return length
