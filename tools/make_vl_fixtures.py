#!/usr/bin/env python3
"""Makes the image fixtures of issue 23 (Qwen3.5 vision-language): what Pillow and transformers'
Qwen-VL image processor make of a set of odd images, and a tiny random-init Qwen3.5 VL checkpoint
with transformers' outputs on sequences holding images.

Run on a machine with torch + transformers + Pillow (the GPU machine, through
tools/gpu/vl_fixtures.sh; everything here runs on the CPU):
    python3 tools/make_vl_fixtures.py tests/fixtures/vision tests/fixtures/model

<vision>/images/: the input images, drawn here from a seeded generator (shapes on noise, so that
resampling has edges and texture to get wrong): RGB, RGBA with varying alpha, grey (L), palette (P)
PNGs, a JPEG, a 50:1 strip and sizes that round down as well as up to multiples of 32.

<vision>/processor.safetensors, per image <name>:
  <name>.decoded  u8 [H, W, 3]   the image as verl's rollout hands it on: Image.open, then
                                 qwen-vl-utils' to_rgb (RGBA composited onto white with
                                 Image.paste(mask=alpha), anything else .convert("RGB"))
  <name>.fetched  u8 [h, w, 3]   qwen-vl-utils fetch_image: smart_resize(factor 32, min_pixels 4*32^2,
                                 max_pixels 16384*32^2, sides clamped to at least 32) and
                                 Image.resize((w, h)) (Pillow's default filter, bicubic); written out
                                 here from multimodal.md §3.1-3.2 since qwen_vl_utils is not
                                 installed on that machine
  <name>.processed u8 [h2, w2, 3] what transformers' processor resized `fetched` to, read back from
                                 its pixel_values (value = (u8 / 255 - 0.5) / 0.5 is exact to
                                 invert); frame 0 of the temporal pair
  <name>.grid      i64 [3]       its image_grid_thw row
  tiny.pixel_values f32 [N, 96], tiny.grid i64 [2, 3]: the processor at patch 4 / merge 2 /
                                 temporal 2 on two small images (tiny_a 24x16, tiny_b 8x40, W x H),
                                 for the layout of pixel_values itself
<vision>/processor.json: versions, the processor class and its settings, the images and sizes.

<model>/qwen3_5_vl_images/: Qwen3_5ForConditionalGeneration, text as the qwen3_5 fixture's shapes
(4 layers [linear, full, linear, linear], V 304) with image/video/vision-start/vision-end ids 300,
301, 298, 299 inside the vocabulary, and a 2-block vision tower (hidden 32, 2 heads, patch 4,
temporal 2, merge 2, out 64, a 4 x 4 learned position table), fp32, saved by save_pretrained.
<model>/qwen3_5_vl_images.reference.safetensors, three sequences packed back to back (one image;
two images; text only), each run alone in float64 (eager attention) and stored as fp32:
  input_ids [T], cu_seqlens [S+1] i32, position_ids [3, T] (transformers' get_rope_index),
  rope_deltas [S], pixel_values [N, 96] (tiny_a, tiny_b, tiny_a in order of appearance),
  image_grid_thw [3, 3], image_embeds [tokens, 64] (the merger's output, all images),
  targets [T], loss_mask [T], logits [T, V], logprobs [T], entropy [T] (temperature 0.7),
  grad.<parameter> of every parameter (vision tower included) of
  loss = -mean(logprobs) - 0.01 mean(entropy) over loss_mask.
<model>/qwen3_5_vl_images.json: constants, versions, loss, greedy: generate(do_sample=False,
max_new_tokens 10) of sequence 0's first 14 tokens (its image included), fp32, and its log-probs
(or the error generate raised).
"""
import inspect
import io
import json
import math
import os
import sys

import numpy as np
import torch
import transformers
from PIL import Image, ImageDraw
from safetensors.torch import save_file

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_model_fixtures import ENTROPY_COEFF, TEMPERATURE, logprob_entropy  # noqa: E402
from make_qwen3_5_fixtures import DENSE, init_text, init_vision  # noqa: E402

SEED = 23
# qwen-vl-utils (multimodal.md §3.1): patch 16 x merge 2, 4..16384 tokens.
FETCH_FACTOR = 32
FETCH_MIN_PIXELS = 4 * 32 * 32
FETCH_MAX_PIXELS = 16384 * 32 * 32
# Qwen3.5's preprocessor_config.json (multimodal.md §3.3).
PROCESSOR = dict(patch_size=16, temporal_patch_size=2, merge_size=2,
                 size={"shortest_edge": 65536, "longest_edge": 16777216},
                 image_mean=[0.5, 0.5, 0.5], image_std=[0.5, 0.5, 0.5], rescale_factor=1 / 255)
TINY_PROCESSOR = dict(PROCESSOR, patch_size=4, size={"shortest_edge": 64, "longest_edge": 100000})
IMAGE_ID, VIDEO_ID, START_ID, END_ID = 300, 301, 298, 299
VISION = dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=2, in_channels=3,
              patch_size=4, temporal_patch_size=2, spatial_merge_size=2, out_hidden_size=64,
              num_position_embeddings=16)
GREEDY_PROMPT = 14  # sequence 0's 5 text tokens, its image run (8) and one more
GREEDY_NEW = 10
# (name, mode, width, height, format)
IMAGES = [("rgb_37x23", "RGB", 37, 23, "png"), ("rgba_64x200", "RGBA", 64, 200, "png"),
          ("gray_150x100", "L", 150, 100, "png"), ("palette_33x33", "P", 33, 33, "png"),
          ("photo_300x47", "RGB", 300, 47, "jpeg"), ("strip_1000x20", "RGB", 1000, 20, "png"),
          ("rgb_600x330", "RGB", 600, 330, "png")]


def draw_image(mode, width, height, rng):
    noise = rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
    img = Image.fromarray(noise, "RGB")
    draw = ImageDraw.Draw(img)
    for _ in range(6):
        x0, y0 = int(rng.integers(0, width)), int(rng.integers(0, height))
        x1, y1 = x0 + int(rng.integers(1, width)), y0 + int(rng.integers(1, height))
        color = tuple(int(c) for c in rng.integers(0, 256, 3))
        draw.rectangle([x0, y0, x1, y1], fill=color) if rng.random() < 0.5 else \
            draw.ellipse([x0, y0, x1, y1], outline=color, width=2)
    if mode == "RGBA":
        alpha = rng.integers(0, 256, (height, width), dtype=np.uint8)
        alpha[: height // 3] = 255
        alpha[height // 3: 2 * height // 3] = 0
        img = Image.fromarray(np.dstack([np.asarray(img), alpha]), "RGBA")
    elif mode == "L":
        img = img.convert("L")
    elif mode == "P":
        img = img.quantize(colors=17)
    return img


def to_rgb(img):
    """qwen-vl-utils' to_rgb."""
    if img.mode == "RGBA":
        white = Image.new("RGB", img.size, (255, 255, 255))
        white.paste(img, mask=img.split()[3])
        return white
    return img.convert("RGB")


def fetch_smart_resize(height, width):
    """qwen-vl-utils' smart_resize (sides clamped to at least the factor; Python round)."""
    f = FETCH_FACTOR
    if max(height, width) / min(height, width) > 200:
        raise SystemExit(f"aspect ratio over 200: {width}x{height}")
    h_bar = max(f, round(height / f) * f)
    w_bar = max(f, round(width / f) * f)
    if h_bar * w_bar > FETCH_MAX_PIXELS:
        beta = math.sqrt((height * width) / FETCH_MAX_PIXELS)
        h_bar = max(f, math.floor(height / beta / f) * f)
        w_bar = max(f, math.floor(width / beta / f) * f)
    elif h_bar * w_bar < FETCH_MIN_PIXELS:
        beta = math.sqrt(FETCH_MIN_PIXELS / (height * width))
        h_bar = math.ceil(height * beta / f) * f
        w_bar = math.ceil(width * beta / f) * f
    return h_bar, w_bar


def make_processor(settings):
    cls = getattr(transformers, "Qwen2VLImageProcessorFast", None)
    try:
        import torchvision  # noqa: F401
    except ImportError:
        cls = None
    if cls is None:
        cls = transformers.Qwen2VLImageProcessor
    return cls(do_resize=True, do_rescale=True, do_normalize=True, do_convert_rgb=True, **settings)


def unpatchify(pixel_values, grid, settings):
    """Frame 0 of pixel_values [N, C*T*P*P] back to u8 [H, W, C] (the inverse of §3.3's layout)."""
    t, gh, gw = (int(x) for x in grid)
    p, m, tp = settings["patch_size"], settings["merge_size"], settings["temporal_patch_size"]
    x = pixel_values.reshape(t, gh // m, gw // m, m, m, 3, tp, p, p)
    x = x.permute(0, 6, 5, 1, 3, 7, 2, 4, 8).reshape(t * tp, 3, gh * p, gw * p)[0]
    u = torch.round((x.double() + 1.0) * 127.5)
    if (u - (x.double() + 1.0) * 127.5).abs().max() > 1e-3:
        raise SystemExit("pixel_values are not (u8 / 255 - 0.5) / 0.5 of whole u8 values")
    return u.clamp(0, 255).to(torch.uint8).permute(1, 2, 0).contiguous()


def make_processor_fixtures(out_dir):
    rng = np.random.default_rng(SEED)
    os.makedirs(os.path.join(out_dir, "images"), exist_ok=True)
    processor = make_processor(PROCESSOR)
    tensors, meta = {}, {"processor_class": type(processor).__name__, "images": []}
    for name, mode, width, height, fmt in IMAGES:
        path = os.path.join(out_dir, "images", f"{name}.{'jpg' if fmt == 'jpeg' else fmt}")
        img = draw_image(mode, width, height, rng)
        img.save(path, format=fmt.upper(), **({"quality": 85} if fmt == "jpeg" else {}))
        decoded = to_rgb(Image.open(path))
        h, w = fetch_smart_resize(decoded.height, decoded.width)
        fetched = decoded.resize((w, h))
        result = processor(images=[fetched], return_tensors="pt")
        grid = result["image_grid_thw"][0]
        processed = unpatchify(result["pixel_values"], grid, PROCESSOR)
        tensors[f"{name}.decoded"] = torch.from_numpy(np.asarray(decoded).copy())
        tensors[f"{name}.fetched"] = torch.from_numpy(np.asarray(fetched).copy())
        tensors[f"{name}.processed"] = processed
        tensors[f"{name}.grid"] = grid.to(torch.int64)
        meta["images"].append({"name": name, "file": os.path.basename(path), "mode": mode,
                               "size": [width, height], "fetched": [w, h],
                               "processed": [int(processed.shape[1]), int(processed.shape[0])],
                               "grid": [int(x) for x in grid]})
        print(f"{name}: {width}x{height} {mode} -> fetched {w}x{h} -> processed "
              f"{processed.shape[1]}x{processed.shape[0]}, grid {grid.tolist()}")
    tiny = make_processor(TINY_PROCESSOR)
    tiny_images = [draw_image("RGB", 24, 16, rng), draw_image("RGB", 8, 40, rng)]
    for name, img in zip(("tiny_a", "tiny_b"), tiny_images):
        img.save(os.path.join(out_dir, "images", f"{name}.png"))
    result = tiny(images=tiny_images, return_tensors="pt")
    tensors["tiny.pixel_values"] = result["pixel_values"].float().contiguous()
    tensors["tiny.grid"] = result["image_grid_thw"].to(torch.int64)
    meta["tiny_processor_class"] = type(tiny).__name__
    meta["processor"] = {k: v for k, v in PROCESSOR.items()}
    meta["tiny_processor"] = {k: v for k, v in TINY_PROCESSOR.items()}
    meta["fetch"] = {"factor": FETCH_FACTOR, "min_pixels": FETCH_MIN_PIXELS,
                     "max_pixels": FETCH_MAX_PIXELS}
    meta["versions"] = {"transformers": transformers.__version__, "torch": torch.__version__,
                        "pillow": Image.__version__}
    save_file({k: v.contiguous() for k, v in tensors.items()},
              os.path.join(out_dir, "processor.safetensors"))
    with open(os.path.join(out_dir, "processor.json"), "w") as f:
        json.dump(meta, f, indent=1)
    return [Image.open(os.path.join(out_dir, "images", f"{n}.png")).convert("RGB")
            for n in ("tiny_a", "tiny_b")]


def build_vl(seed):
    gen = torch.Generator().manual_seed(seed)
    text = dict(DENSE)
    text.pop("tie_word_embeddings")
    config = transformers.Qwen3_5Config(
        text_config=dict(text, tie_word_embeddings=False), vision_config=dict(VISION),
        tie_word_embeddings=False, image_token_id=IMAGE_ID, video_token_id=VIDEO_ID,
        vision_start_token_id=START_ID, vision_end_token_id=END_ID)
    model = transformers.Qwen3_5ForConditionalGeneration(config)
    init_text(model.model.language_model, gen, 0.0)
    with torch.no_grad():
        model.lm_head.weight.copy_(0.08 * torch.randn(model.lm_head.weight.shape, generator=gen))
    init_vision(model.model.visual, gen)
    return model.eval(), gen


def image_run(grid):
    tokens = int(grid[0] * grid[1] * grid[2]) // (VISION["spatial_merge_size"] ** 2)
    return [START_ID] + [IMAGE_ID] * tokens + [END_ID]


def make_sequences(gen, grids):
    def text(n):
        return torch.randint(0, START_ID, (n,), generator=gen).tolist()
    a, b = grids[0], grids[1]
    seqs = [text(5) + image_run(a) + text(7),
            text(3) + image_run(b) + text(2) + image_run(a) + text(6),
            text(9)]
    images = [[0], [1, 0], []]
    return seqs, images


def rope_index(model, ids, grid):
    fn = model.model.get_rope_index
    params = inspect.signature(fn).parameters
    kwargs = {"input_ids": ids[None], "image_grid_thw": grid, "video_grid_thw": None,
              "attention_mask": torch.ones_like(ids)[None]}
    if "mm_token_type_ids" in params:
        kwargs["mm_token_type_ids"] = mm_token_type_ids(ids)[None]
    kwargs = {k: v for k, v in kwargs.items() if k in params}
    position_ids, deltas = fn(**kwargs)
    return position_ids[:, 0], deltas.reshape(-1)


def mm_token_type_ids(ids):
    """What the processor returns beside input_ids: 1 at image pad tokens, else 0."""
    return (ids == IMAGE_ID).to(torch.int64)


def forward(model, ids, pixel_values, grid):
    kwargs = {"input_ids": ids[None], "use_cache": False}
    if pixel_values is not None:
        kwargs.update(pixel_values=pixel_values, image_grid_thw=grid,
                      mm_token_type_ids=mm_token_type_ids(ids)[None])
    return model(**kwargs).logits[0]


def make_greedy(model, prompt, pixel_values, grid):
    with torch.no_grad():
        out = model.generate(input_ids=prompt, pixel_values=pixel_values, image_grid_thw=grid,
                             mm_token_type_ids=mm_token_type_ids(prompt[0])[None],
                             attention_mask=torch.ones_like(prompt), do_sample=False,
                             max_new_tokens=GREEDY_NEW, min_new_tokens=GREEDY_NEW, num_beams=1,
                             eos_token_id=None, pad_token_id=0, return_dict_in_generate=True,
                             output_logits=True)
    tokens = out.sequences[0, prompt.shape[1]:]
    step_logits = torch.stack(out.logits, dim=1)[0].float()
    logprobs = torch.log_softmax(step_logits, -1).gather(-1, tokens[:, None])[:, 0]
    return {"tokens": tokens.tolist(), "logprobs": logprobs.tolist()}


def make_model_fixture(model_dir, tiny_images):
    model, gen = build_vl(SEED)
    folder = os.path.join(model_dir, "qwen3_5_vl_images")
    model.save_pretrained(folder)
    processor = make_processor(TINY_PROCESSOR)
    per_image = [processor(images=[img], return_tensors="pt") for img in tiny_images]
    grids = [r["image_grid_thw"][0] for r in per_image]
    seqs, images = make_sequences(gen, grids)
    reloaded = transformers.Qwen3_5ForConditionalGeneration.from_pretrained(
        folder, attn_implementation="eager").eval().double()
    ids_all, pos_all, deltas, pv_all, grid_all = [], [], [], [], []
    logits_all, targets_all, mask_all = [], [], []
    total_mask = sum(len(s) - 1 for s in seqs)
    loss_value = 0.0
    embeds = []
    for seq, imgs in zip(seqs, images):
        ids = torch.tensor(seq)
        pv = torch.cat([per_image[i]["pixel_values"] for i in imgs]).double() if imgs else None
        grid = torch.stack([grids[i] for i in imgs]) if imgs else None
        pos, delta = rope_index(reloaded, ids, grid)
        logits = forward(reloaded, ids, pv, grid)
        targets = torch.zeros_like(ids)
        targets[:-1] = ids[1:]
        mask = torch.ones(len(seq), dtype=torch.float64)
        mask[-1] = 0
        lp, ent = logprob_entropy(logits.double(), targets)
        loss = (-(lp * mask).sum() - ENTROPY_COEFF * (ent * mask).sum()) / total_mask
        loss.backward()
        loss_value += float(loss)
        if imgs:
            with torch.no_grad():
                out = reloaded.model.get_image_features(pv, grid)
                feats = out.pooler_output if hasattr(out, "pooler_output") else out
                feats = torch.cat(list(feats)) if isinstance(feats, (list, tuple)) else feats
            embeds.append(feats.float())
            pv_all.append(pv.float())
            grid_all.append(grid)
        ids_all.append(ids)
        pos_all.append(pos)
        deltas.append(delta)
        logits_all.append(logits.detach().float())
        targets_all.append(targets)
        mask_all.append(mask.float())
    lens = [len(s) for s in seqs]
    logits = torch.cat(logits_all)
    targets = torch.cat(targets_all)
    lp, ent = logprob_entropy(logits.double(), targets)
    tensors = {
        "input_ids": torch.cat(ids_all), "position_ids": torch.cat(pos_all, dim=1).contiguous(),
        "cu_seqlens": torch.tensor([0] + list(np.cumsum(lens)), dtype=torch.int32),
        "rope_deltas": torch.cat(deltas).to(torch.int64),
        "pixel_values": torch.cat(pv_all), "image_grid_thw": torch.cat(grid_all).to(torch.int64),
        "image_embeds": torch.cat(embeds), "targets": targets, "loss_mask": torch.cat(mask_all),
        "logits": logits, "logprobs": lp.float(), "entropy": ent.float()}
    for name, p in reloaded.named_parameters():
        if p.grad is not None:
            tensors[f"grad.{name}"] = p.grad.float()
    save_file({k: v.contiguous() for k, v in tensors.items()},
              os.path.join(model_dir, "qwen3_5_vl_images.reference.safetensors"))
    fp32 = transformers.Qwen3_5ForConditionalGeneration.from_pretrained(
        folder, attn_implementation="eager").eval()
    prompt = torch.tensor(seqs[0][:GREEDY_PROMPT])[None]
    try:
        greedy = make_greedy(fp32, prompt, per_image[0]["pixel_values"], grids[0][None])
    except Exception as e:  # recorded, so that the rest of the fixture still lands
        greedy = {"error": repr(e)}
    fp32_logits = torch.cat([forward(fp32, torch.tensor(s), (torch.cat(
        [per_image[i]["pixel_values"] for i in im]) if im else None), (torch.stack(
            [grids[i] for i in im]) if im else None)).detach() for s, im in zip(seqs, images)])
    meta = {"seq_lens": lens, "images_per_sequence": images, "temperature": TEMPERATURE,
            "entropy_coeff": ENTROPY_COEFF, "loss": loss_value,
            "image_token_id": IMAGE_ID, "video_token_id": VIDEO_ID,
            "vision_start_token_id": START_ID, "vision_end_token_id": END_ID,
            "vision_config": VISION, "rope_index_signature": str(
                inspect.signature(reloaded.model.get_rope_index)),
            "fp32_vs_float64_logits_max_abs": float((fp32_logits.float() - logits).abs().max()),
            "greedy": dict(greedy, prompt=seqs[0][:GREEDY_PROMPT], image="tiny_a"),
            "versions": {"transformers": transformers.__version__, "torch": torch.__version__}}
    with open(os.path.join(model_dir, "qwen3_5_vl_images.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(json.dumps({k: v for k, v in meta.items() if k != "greedy"}, indent=1))
    print("greedy", meta["greedy"])


def main():
    vision_dir, model_dir = sys.argv[1], sys.argv[2]
    torch.manual_seed(SEED)
    tiny_images = make_processor_fixtures(vision_dir)
    make_model_fixture(model_dir, tiny_images)


if __name__ == "__main__":
    main()
