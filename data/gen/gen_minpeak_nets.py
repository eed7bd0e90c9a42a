#!/usr/bin/python3
"""Generate the large unfolded networks the exact M_P search is tested on
(tests/data/minpeak/<name>.json, 584 to about 1,300 ops), as a user would make them: torch.onnx.export
(torch 1.13, opset 14, batch 1, weights=None) and `spadmap import` with no options.

    /usr/bin/python3 data/gen/gen_minpeak_nets.py build/tui/spadmap          # all
    /usr/bin/python3 data/gen/gen_minpeak_nets.py build/tui/spadmap gpt12    # some

The ONNX files (85-115 MB of weights) are written to a temporary directory and
deleted; only the imported network JSONs (0.2-0.3 MB) are kept.
"""
import os
import subprocess
import sys
import tempfile

import torch
import torch.nn as nn
import torchvision.models as tvm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nas_models  # noqa: E402

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, '..', '..', 'tests', 'data', 'minpeak'))


class Block(nn.Module):
    """A GPT-2 style pre-norm decoder block written with fixed shapes (no
    nn.MultiheadAttention, whose export needs shape arithmetic)."""

    def __init__(self, d, heads, t):
        super().__init__()
        self.h, self.t, self.d = heads, t, d
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.register_buffer('mask', torch.triu(torch.full((t, t), -1e4), 1))

    def forward(self, x):
        h, t, dh = self.h, self.t, self.d // self.h
        q, k, v = self.qkv(self.ln1(x)).split(self.d, dim=-1)
        q = q.reshape(1, t, h, dh).transpose(1, 2)
        k = k.reshape(1, t, h, dh).transpose(1, 2)
        v = v.reshape(1, t, h, dh).transpose(1, 2)
        a = torch.softmax(q @ k.transpose(2, 3) / dh ** 0.5 + self.mask, dim=-1)
        y = (a @ v).transpose(1, 2).reshape(1, t, self.d)
        x = x + self.proj(y)
        return x + self.out(torch.nn.functional.gelu(self.fc(self.ln2(x))))


class Gpt(nn.Module):
    def __init__(self, blocks=12, d=768, heads=12, t=128, vocab=50257):
        super().__init__()
        self.emb = nn.Linear(d, d)  # stands in for the token embedding (inputs are embeddings)
        self.blocks = nn.Sequential(*[Block(d, heads, t) for _ in range(blocks)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab // 16)

    def forward(self, x):
        return self.head(self.ln(self.blocks(self.emb(x))))


MODELS = {
    'convnext_tiny': (lambda: tvm.convnext_tiny(weights=None), (1, 3, 224, 224)),
    'efficientnet_v2_s': (lambda: tvm.efficientnet_v2_s(weights=None), (1, 3, 224, 224)),
    'gpt12': (Gpt, (1, 128, 768)),
    'gpt24': (lambda: Gpt(blocks=24, d=512, heads=8, t=256), (1, 256, 512)),
    'convnext_small': (lambda: tvm.convnext_small(weights=None), (1, 3, 224, 224)),
    'darts_onnx': (nas_models.DartsImageNet, (1, 3, 224, 224)),
}


def main(argv):
    spadmap, want = argv[1], argv[2:]
    os.makedirs(OUT, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, (build, shape) in MODELS.items():
            if want and name not in want:
                continue
            torch.manual_seed(0)
            model = build().eval()
            onnx_path = os.path.join(tmp, name + '.onnx')
            torch.onnx.export(model, torch.zeros(shape), onnx_path, opset_version=14)
            out = os.path.join(OUT, name + '.json')
            subprocess.run([spadmap, 'import', onnx_path, '--out', out], check=True)
            os.remove(onnx_path)
            sys.stderr.write('wrote %s\n' % out)


if __name__ == '__main__':
    main(sys.argv)
