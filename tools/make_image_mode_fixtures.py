#!/usr/bin/env python3
"""Makes the image-mode fixtures (issue 24): what Pillow hands verl's rollout for image files whose
pixels are not 8-bit RGB(A), grey or palette: a CMYK JPEG (Pillow writes it with an Adobe APP14
marker and inverted samples, as Photoshop does), a 16-bit grey PNG, and a 16-bit grey + alpha PNG.

Run where Pillow, numpy, torch and safetensors are installed (the GPU machine; CPU only):
    python3 tools/make_image_mode_fixtures.py tests/fixtures/vision/modes

<out>/*.jpg, *.png: the inputs, drawn from a seeded generator (values over the whole range, so
that 16-bit samples above 255 and below 256 both occur and every CMYK ink level is present).
<out>/decoded.safetensors: per image <name> a u8 [H, W, 3] tensor, the image as verl's rollout
hands it on: Image.open, then qwen-vl-utils' to_rgb (an RGBA image pasted onto white with its
alpha as mask, anything else .convert("RGB")); for the CMYK JPEG also <name>.cmyk, u8 [H, W, 4],
the CMYK samples Pillow decoded (Adobe inversion undone) before its conversion to RGB.
<out>/modes.json: Pillow's version and the mode Pillow opened each image in.
"""
import json
import os
import struct
import sys
import zlib

import numpy as np
import PIL
import torch
from PIL import Image
from safetensors.torch import save_file

SEED = 24
W, H = 37, 29


def to_rgb(image):
    """qwen-vl-utils' to_rgb (multimodal.md §3.1)."""
    if image.mode == "RGBA":
        white = Image.new("RGB", image.size, (255, 255, 255))
        white.paste(image, mask=image.split()[3])
        return white
    return image.convert("RGB")


def png_chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def write_grey_alpha_16(path, grey, alpha):
    """A PNG of colour type 4 (grey + alpha), 16 bits a sample, written by hand (Pillow cannot)."""
    rows = b"".join(
        b"\x00" + np.stack([grey[y], alpha[y]], axis=-1).astype(">u2").tobytes() for y in range(H))
    header = struct.pack(">IIBBBBB", W, H, 16, 4, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header) +
                png_chunk(b"IDAT", zlib.compress(rows)) + png_chunk(b"IEND", b""))


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(SEED)
    cmyk = rng.integers(0, 256, size=(H, W, 4), dtype=np.uint8)
    cmyk[:, :3, 3] = 0  # columns without black ink
    Image.fromarray(cmyk, mode="CMYK").save(f"{out}/cmyk_37x29.jpg", quality=90)
    # 16-bit grey: half the samples below 256 (Pillow passes those through), half above.
    grey16 = rng.integers(0, 65536, size=(H, W), dtype=np.uint16)
    grey16[::2] = rng.integers(0, 256, size=grey16[::2].shape, dtype=np.uint16)
    Image.fromarray(grey16, mode="I;16").save(f"{out}/grey16_37x29.png")
    grey = rng.integers(0, 65536, size=(H, W), dtype=np.uint16)
    alpha = rng.integers(0, 65536, size=(H, W), dtype=np.uint16)
    alpha[:, 0] = 65535
    alpha[:, 1] = 0
    write_grey_alpha_16(f"{out}/grey_alpha16_37x29.png", grey, alpha)

    tensors, modes = {}, {}
    for name in sorted(os.listdir(out)):
        if not name.endswith((".png", ".jpg")):
            continue
        with Image.open(f"{out}/{name}") as image:
            modes[name] = image.mode
            if image.mode == "CMYK":
                tensors[name.rsplit(".", 1)[0] + ".cmyk"] = torch.from_numpy(
                    np.asarray(image, dtype=np.uint8).copy())
            rgb = np.asarray(to_rgb(image), dtype=np.uint8)
        tensors[name.rsplit(".", 1)[0] + ".decoded"] = torch.from_numpy(rgb.copy())
    save_file(tensors, f"{out}/decoded.safetensors")
    with open(f"{out}/modes.json", "w") as f:
        json.dump({"pillow": PIL.__version__, "seed": SEED, "modes": modes}, f, indent=1)
    print(json.dumps(modes))


if __name__ == "__main__":
    main(sys.argv[1])
