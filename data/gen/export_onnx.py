#!/usr/bin/python3
"""Export the small ONNX models the importer's tests and the README use
(data/onnx/*.onnx). Run with Debian's python3-torchvision and python3-onnx:

    /usr/bin/python3 data/gen/export_onnx.py

Every model is exported by torch.onnx.export (torch 1.13, opset 13) from a model
built with weights=None. To keep the repository small, the weights are stripped
after export: each float initializer keeps its name, element type and dims (all
the importer reads) but not its values; integer initializers (shapes, axes) keep
their values, which shape inference may need. The build and the tests never run
Python: they read the committed files.
"""
import io
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


def strip(model):
    for t in model.graph.initializer:
        if t.data_type in (onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16, onnx.TensorProto.DOUBLE):
            t.ClearField('raw_data')
            t.ClearField('float_data')
            t.ClearField('double_data')
            t.ClearField('int32_data')
    return model


def export(name, model, shape, dynamic=None, keep_bn=False):
    model.eval()
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


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    export('tiny_cnn', Tiny(), (1, 3, 32, 32), keep_bn=True)
    export('tiny_cnn_dynamic', Tiny(), (1, 3, 32, 32), dynamic={'x': {0: 'batch'}, 'y': {0: 'batch'}})
    export('resnet18', tvm.resnet18(weights=None), (1, 3, 224, 224))
    export('squeezenet1_1', tvm.squeezenet1_1(weights=None), (1, 3, 224, 224))
    export('mobilenet_v3_small', tvm.mobilenet_v3_small(weights=None), (1, 3, 224, 224))


if __name__ == '__main__':
    main()
