#!/usr/bin/python3
"""Export the small ONNX models the importer's tests and the README use
(data/onnx/*.onnx). Run with Debian's python3-torchvision and python3-onnx:

    /usr/bin/python3 data/gen/export_onnx.py        # everything
    /usr/bin/python3 data/gen/export_onnx.py bad    # only tests/data/onnx/bad_*.onnx
    /usr/bin/python3 data/gen/export_onnx.py transformers  # only the transformers

Every model is exported by torch.onnx.export (torch 1.13; opset 13 for the CNNs,
14 and 17 for the transformers, as torch writes them by default) from a model built
with weights=None and random BatchNorm statistics (see randomize). To keep the repository small, the weights are stripped
after export: each float initializer keeps its name, element type and dims (all
the importer reads) but not its values; integer initializers (shapes, axes) keep
their values, which shape inference may need. The build and the tests never run
Python: they read the committed files.
"""
import io
import json
import os
import sys

import onnx
import torch
import torch.nn as nn
import torchvision.models as tvm

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, '..', 'onnx'))


class Tiny(nn.Module):
    """conv-BN-ReLU, a residual add, pooling and a linear head: every folding case."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(8)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        a = torch.relu(self.bn1(self.conv1(x)))
        b = self.bn2(self.conv2(a))
        c = torch.relu(a + b)
        return self.fc(torch.flatten(self.pool(c), 1))


class MaxVitBlock(nn.Module):
    """torchvision 0.14 has no maxvit_t: one MaxViT block written here with the same
    shape arithmetic (MBConv, then attention within p x p windows and across a g x g
    grid, both partitions computed from x.shape as torchvision's MaxVit does)."""

    def __init__(self, c=32, p=4, g=4, heads=2):
        super().__init__()
        self.p, self.g = p, g
        self.mbconv = nn.Sequential(nn.BatchNorm2d(c), nn.Conv2d(c, 4 * c, 1), nn.GELU(),
                                    nn.Conv2d(4 * c, 4 * c, 3, padding=1, groups=4 * c), nn.GELU(),
                                    nn.Conv2d(4 * c, c, 1))
        self.norm1, self.norm2 = nn.LayerNorm(c), nn.LayerNorm(c)
        self.block_attn = nn.MultiheadAttention(c, heads, batch_first=True)
        self.grid_attn = nn.MultiheadAttention(c, heads, batch_first=True)

    @staticmethod
    def windows(x, p, grid):
        B, C, H, W = x.shape
        if grid:  # p x p cells spread over the image (stride H // p)
            x = x.reshape(B, C, p, H // p, p, W // p).permute(0, 3, 5, 2, 4, 1)
        else:     # p x p neighbours
            x = x.reshape(B, C, H // p, p, W // p, p).permute(0, 2, 4, 3, 5, 1)
        return x.reshape(-1, p * p, C)

    @staticmethod
    def unwindows(x, p, grid, shape):
        B, C, H, W = shape
        if grid:
            x = x.reshape(B, H // p, W // p, p, p, C).permute(0, 5, 3, 1, 4, 2)
        else:
            x = x.reshape(B, H // p, W // p, p, p, C).permute(0, 5, 1, 3, 2, 4)
        return x.reshape(B, C, H, W)

    def attend(self, x, attn, norm, grid):
        w = norm(self.windows(x, self.p if not grid else self.g, grid))
        w = attn(w, w, w, need_weights=False)[0]
        return x + self.unwindows(w, self.p if not grid else self.g, grid, x.shape)

    def forward(self, x):
        x = x + self.mbconv(x)
        x = self.attend(x, self.block_attn, self.norm1, False)
        return self.attend(x, self.grid_attn, self.norm2, True)


def transformer_models():
    """The transformers issue 37 found refused, small: (name, model, inputs, opset)."""
    from torchvision.models.swin_transformer import SwinTransformer
    from torchvision.models.vision_transformer import VisionTransformer
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4, 128, batch_first=True), 2)
    full = nn.Transformer(64, 4, 2, 2, 128, batch_first=True)
    vit = VisionTransformer(image_size=64, patch_size=16, num_layers=2, num_heads=4, hidden_dim=64,
                            mlp_dim=128, num_classes=10)
    # shifted windows (the second block of a stage) and a patch merging: depths [2, 1]
    swin = SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 1], num_heads=[2, 4], window_size=[4, 4],
                           num_classes=10)
    return [('transformer_encoder', enc, {'x': (1, 16, 64)}, 14),
            ('transformer', full, {'src': (1, 16, 64), 'tgt': (1, 8, 64)}, 14),
            ('vit_small', vit, {'x': (1, 3, 64, 64)}, 14),
            ('swin_small', swin, {'x': (1, 3, 64, 64)}, 17),
            ('maxvit_block', MaxVitBlock(), {'x': (1, 32, 16, 16)}, 17)]


def export_transformers():
    """Exports the transformers as torch writes them (no dynamic axes, default
    constant folding) and records what torch computes for each output: its shape
    and dtype, in data/onnx/expected_outputs.json, for the importer's tests."""
    expected = {}
    for name, model, inputs, opset in transformer_models():
        model.eval()
        randomize(model)
        args = tuple(torch.randn(*shape) for shape in inputs.values())
        with torch.no_grad():
            out = model(*args)
        outs = out if isinstance(out, (list, tuple)) else [out]
        buf = io.BytesIO()
        torch.onnx.export(model, args, buf, opset_version=opset, input_names=list(inputs),
                          output_names=['y%d' % i if len(outs) > 1 else 'y' for i in range(len(outs))])
        m = strip(onnx.load_from_string(buf.getvalue()))
        m.producer_version = torch.__version__.split('+')[0]
        path = os.path.join(OUT, name + '.onnx')
        onnx.save(m, path)
        expected[name] = {o.name: {'shape': list(t.shape), 'dtype': str(t.dtype).replace('torch.', '')}
                          for o, t in zip(m.graph.output, outs)}
        sys.stderr.write('wrote %s: %d nodes, %d bytes\n' % (path, len(m.graph.node), os.path.getsize(path)))
    with open(os.path.join(OUT, 'expected_outputs.json'), 'w') as f:
        f.write('{\n' + ',\n'.join('"%s": %s' % (k, json.dumps(expected[k], sort_keys=True))
                                    for k in sorted(expected)) + '\n}\n')


def strip(model):
    for t in model.graph.initializer:
        if t.data_type in (onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.DOUBLE):
            t.ClearField('raw_data')
            t.ClearField('float_data')
            t.ClearField('double_data')
            t.ClearField('int32_data')
    return model


def randomize(model):
    """Untrained BN layers all hold the same statistics, so the exporter shares
    their folded biases through Identity nodes; random statistics (as a trained
    model has) give the graph a trained model exports."""
    g = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=g))
                m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) + 0.5)
                m.weight.copy_(torch.randn(m.weight.shape, generator=g))
                m.bias.copy_(torch.randn(m.bias.shape, generator=g))


def export(name, model, shape, dynamic=None, keep_bn=False):
    model.eval()
    randomize(model)
    buf = io.BytesIO()
    kw = {}
    if keep_bn:  # BatchNormalization stays a node (for --fold)
        kw = dict(training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
    torch.onnx.export(model, torch.zeros(*shape), buf, opset_version=13, input_names=['x'],
                      output_names=['y'], dynamic_axes=dynamic, **kw)
    m = strip(onnx.load_from_string(buf.getvalue()))
    m.producer_version = torch.__version__.split('+')[0]
    path = os.path.join(OUT, name + '.onnx')
    onnx.save(m, path)
    sys.stderr.write('wrote %s: %d nodes, %d bytes\n' % (path, len(m.graph.node), os.path.getsize(path)))


def bad_models():
    """Malformed models for the importer's error tests (tests/data/onnx/bad_*.onnx),
    written with onnx.helper and no checker, so they stay malformed."""
    from onnx import TensorProto, helper
    out = os.path.normpath(os.path.join(HERE, '..', '..', 'tests', 'data', 'onnx'))
    os.makedirs(out, exist_ok=True)

    def vi(name, shape, elem=TensorProto.FLOAT):
        return helper.make_tensor_value_info(name, elem, shape)

    def save(name, nodes, inputs, outputs):
        g = helper.make_graph(nodes, name, inputs, outputs)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)], producer_name='spadmap-tests')
        path = os.path.join(out, name + '.onnx')
        with open(path, 'wb') as f:
            f.write(m.SerializeToString())
        sys.stderr.write('wrote %s\n' % path)

    # a node reads "ghost", which nothing defines
    save('bad_undefined', [helper.make_node('Relu', ['x'], ['a'], name='r1'),
                           helper.make_node('Add', ['a', 'ghost'], ['y'], name='add')],
         [vi('x', [1, 4])], [vi('y', [1, 4])])
    # a -> b -> a: two nodes wait on each other
    save('bad_cycle', [helper.make_node('Add', ['x', 'b'], ['a'], name='first'),
                       helper.make_node('Relu', ['a'], ['b'], name='second'),
                       helper.make_node('Relu', ['b'], ['y'], name='last')],
         [vi('x', [1, 4])], [vi('y', [1, 4])])
    # element type 99 is no ONNX type
    save('bad_elem_type', [helper.make_node('Relu', ['x'], ['y'], name='r')],
         [vi('x', [1, 4], 99)], [vi('y', [1, 4], 99)])
    # one value written by two nodes
    save('bad_twice', [helper.make_node('Relu', ['x'], ['y'], name='r1'),
                       helper.make_node('Relu', ['x'], ['y'], name='r2')],
         [vi('x', [1, 4])], [vi('y', [1, 4])])
    # a shape inference cannot know: a custom op's output
    save('bad_unknown_shape', [helper.make_node('Mystery', ['x'], ['m'], name='mystery', domain='example.com'),
                               helper.make_node('Relu', ['m'], ['y'], name='r')],
         [vi('x', [1, 4])], [vi('y', None)])
    # a correct model: two ops, a diamond, to compare every value by hand
    save('good_diamond', [helper.make_node('Relu', ['x'], ['a'], name='left'),
                          helper.make_node('Sigmoid', ['x'], ['b'], name='right'),
                          helper.make_node('Concat', ['a', 'b'], ['y'], name='join', axis=1)],
         [vi('x', [2, 3], TensorProto.FLOAT16)], [vi('y', [2, 6], TensorProto.FLOAT16)])
    # an If whose branches read "a" from the outer graph: "a" is an input of the If op
    then_g = helper.make_graph([helper.make_node('Relu', ['a'], ['t'], name='then_relu')], 'then', [],
                               [vi('t', [1, 4])])
    else_g = helper.make_graph([helper.make_node('Neg', ['a'], ['e'], name='else_neg')], 'else', [],
                               [vi('e', [1, 4])])
    save('good_if_outer', [helper.make_node('Sigmoid', ['x'], ['a'], name='make_a'),
                           helper.make_node('If', ['c'], ['y'], name='branch', then_branch=then_g,
                                            else_branch=else_g)],
         [vi('x', [1, 4]), vi('c', [1], TensorProto.BOOL)], [vi('y', [1, 4])])
    # truncated: the first 300 bytes of a real export
    with open(os.path.join(OUT, 'tiny_cnn.onnx'), 'rb') as f:
        data = f.read()
    with open(os.path.join(out, 'bad_truncated.onnx'), 'wb') as f:
        f.write(data[:300])


def main():
    os.makedirs(OUT, exist_ok=True)
    if sys.argv[1:] == ['bad']:
        return bad_models()
    if sys.argv[1:] == ['transformers']:
        torch.manual_seed(0)
        return export_transformers()
    torch.manual_seed(0)
    export('tiny_cnn', Tiny(), (1, 3, 32, 32), keep_bn=True)
    export('tiny_cnn_dynamic', Tiny(), (1, 3, 32, 32), dynamic={'x': {0: 'batch'}, 'y': {0: 'batch'}})
    export('resnet18', tvm.resnet18(weights=None), (1, 3, 224, 224))
    export('resnet50', tvm.resnet50(weights=None), (1, 3, 224, 224))
    export('squeezenet1_1', tvm.squeezenet1_1(weights=None), (1, 3, 224, 224))
    export('mobilenet_v3_small', tvm.mobilenet_v3_small(weights=None), (1, 3, 224, 224))
    export_transformers()
    bad_models()


if __name__ == '__main__':
    main()
