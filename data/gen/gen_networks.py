#!/usr/bin/python3
"""Generate spadmap network graphs (data/networks/<name>.json).

Run from anywhere with Debian's python3 (torch 1.13 + torchvision 0.14.1 from
python3-torchvision, no pretrained weights, no network):

    /usr/bin/python3 data/gen/gen_networks.py            # all networks
    /usr/bin/python3 data/gen/gen_networks.py resnet50   # only some
    /usr/bin/python3 data/gen/gen_networks.py --unfold   # data/networks/unfolded/

Every model is traced with torch.fx (a Tracer whose leaves are the compute
modules, so containers and torchvision blocks are traced through), shapes are
obtained by running the traced graph on zeros, and the fx graph is lowered to
the spadmap-network JSON contract (see data/README.md for the folding rules).
With --unfold nothing is folded: BatchNorm, activations and tensor-constant
arithmetic stay ops of their own, one per PyTorch module or function call, as
in the COSMA paper's graphs (it converts the PyTorch implementation); the
files go to data/networks/unfolded/ (default: the paper's ten human-designed
networks, which `spadmap bench cosma --unfolded` runs).
The output is deterministic: running twice gives byte-identical files.
"""
import collections
import dis
import inspect
import json
import operator
import os
import sys
import types

import torch
import torch.fx as fx
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.models as tvm
import torchvision.models.segmentation as tvseg
import torchvision.models.video as tvvid

sys.dont_write_bytecode = True   # keep data/gen free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nas_models  # noqa: E402
import taa_models  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.normpath(os.path.join(HERE, '..', 'networks'))

# --------------------------------------------------------------------------
# tracing
# --------------------------------------------------------------------------
CONV = (nn.Conv1d, nn.Conv2d, nn.Conv3d)
DECONV = (nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d)
BN = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)
ACT = (nn.ReLU, nn.ReLU6, nn.Hardswish, nn.Hardsigmoid, nn.SiLU, nn.GELU,
       nn.PReLU, nn.Sigmoid, nn.Tanh, nn.LeakyReLU, nn.ELU, nn.Hardtanh,
       nn.Mish)
POOL = (nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d, nn.AvgPool1d, nn.AvgPool2d,
        nn.AvgPool3d, nn.AdaptiveAvgPool1d, nn.AdaptiveAvgPool2d,
        nn.AdaptiveAvgPool3d, nn.AdaptiveMaxPool1d, nn.AdaptiveMaxPool2d,
        nn.AdaptiveMaxPool3d)
DROPOUT = (nn.Dropout, nn.Dropout1d, nn.Dropout2d, nn.Dropout3d, nn.AlphaDropout)
PAD = (nn.ZeroPad2d, nn.ConstantPad1d, nn.ConstantPad2d, nn.ConstantPad3d,
       nn.ReflectionPad2d, nn.ReplicationPad2d)
OTHER_LEAF = (nn.Linear, nn.LayerNorm, nn.GroupNorm, nn.Softmax, nn.Flatten,
              nn.Identity, nn.Upsample, nn.MultiheadAttention)
LEAF = CONV + DECONV + BN + ACT + POOL + DROPOUT + PAD + OTHER_LEAF


class Tracer(fx.Tracer):
    """Leaves = compute modules; records the calling module path of every
    node in node.meta['scope']."""

    def __init__(self):
        super().__init__()
        self.scope = []

    def is_leaf_module(self, m, qualname):
        return isinstance(m, LEAF)

    def call_module(self, m, forward, args, kwargs):
        self.scope.append(self.path_of_module(m))
        try:
            return super().call_module(m, forward, args, kwargs)
        finally:
            self.scope.pop()

    def create_node(self, *a, **k):
        n = super().create_node(*a, **k)
        n.meta['scope'] = self.scope[-1] if self.scope else ''
        return n



def _proxy_iter(self):
    # torch 1.13's Proxy.__iter__ finds the caller's UNPACK_SEQUENCE by
    # indexing bytecode the Python <= 3.10 way; do it by offset instead.
    frame = inspect.currentframe().f_back
    for inst in dis.get_instructions(frame.f_code):
        if inst.offset == frame.f_lasti:
            if inst.opname == 'UNPACK_SEQUENCE':
                return (self[i] for i in range(inst.argval))
            break
    return self.tracer.iter(self)


fx.proxy.Proxy.__iter__ = _proxy_iter


class TS:
    """Shape of a recorded tensor value."""
    __slots__ = ('shape',)

    def __init__(self, shape):
        self.shape = [int(s) for s in shape]


def shape_tree(v):
    if isinstance(v, torch.Tensor):
        return TS(v.shape if v.dim() > 0 else [1])
    if isinstance(v, (tuple, list)):
        return [shape_tree(x) for x in v]
    if isinstance(v, dict):
        return {k: shape_tree(x) for k, x in v.items()}
    return None


class Recorder(fx.Interpreter):
    def __init__(self, gm):
        super().__init__(gm)
        self.vals = {}

    def run_node(self, n):
        r = super().run_node(n)
        self.vals[n] = shape_tree(r)
        return r


# --------------------------------------------------------------------------
# lowering fx -> spadmap-network
# --------------------------------------------------------------------------
ALIAS_FUNCS = {torch.flatten, torch.reshape, torch.permute, torch.transpose,
               torch.squeeze, torch.unsqueeze, torch.t, F.dropout,
               F.dropout2d, F.dropout3d, torch.clone, torch.detach}
ALIAS_METHODS = {'view', 'reshape', 'flatten', 'permute', 'transpose', 't',
                 'contiguous', 'squeeze', 'unsqueeze', 'expand', 'expand_as',
                 'view_as', 'reshape_as', 'clone', 'detach', 'unflatten'}
UNARY_FUNCS = {F.relu: 'relu', torch.relu: 'relu', F.relu6: 'relu6',
               F.hardswish: 'hardswish', F.hardsigmoid: 'hardsigmoid',
               torch.sigmoid: 'sigmoid', F.silu: 'silu', F.gelu: 'gelu',
               torch.tanh: 'tanh', F.hardtanh: 'hardtanh',
               F.leaky_relu: 'leaky_relu', F.elu: 'elu'}
UNARY_METHODS = {'relu': 'relu', 'relu_': 'relu', 'sigmoid': 'sigmoid',
                 'tanh': 'tanh'}
ARITH = {operator.add: 'add', operator.iadd: 'add', torch.add: 'add',
         operator.mul: 'mul', operator.imul: 'mul', torch.mul: 'mul',
         operator.sub: 'sub', torch.sub: 'sub', operator.truediv: 'div',
         torch.div: 'div'}
ARITH_METHODS = {'add': 'add', 'add_': 'add', 'mul': 'mul', 'mul_': 'mul',
                 'sub': 'sub', 'div': 'div'}
FUNC_TYPES = {torch.cat: 'concat', torch.matmul: 'matmul', torch.bmm: 'matmul',
              operator.matmul: 'matmul', F.interpolate: 'interpolate',
              F.adaptive_avg_pool2d: 'adaptive_avg_pool2d',
              F.adaptive_avg_pool3d: 'adaptive_avg_pool3d',
              F.avg_pool2d: 'avg_pool2d', F.max_pool2d: 'max_pool2d',
              F.softmax: 'softmax', torch.softmax: 'softmax',
              torch.mean: 'mean', F.pad: 'pad', F.layer_norm: 'layer_norm',
              torch.chunk: 'split', torch.split: 'split', F.linear: 'linear'}
METHOD_TYPES = {'mean': 'mean', 'softmax': 'softmax', 'chunk': 'split',
                'split': 'split', 'sum': 'sum', 'matmul': 'matmul'}


def _fname(target):
    if isinstance(target, str):
        return target
    return getattr(target, '__name__', str(target))


def _ntuple(v, n):
    if isinstance(v, (list, tuple)):
        return [int(x) for x in v]
    return [int(v)] * n


def _fmt_index(idx):
    if not isinstance(idx, tuple):
        idx = (idx,)
    parts = []
    for i in idx:
        if isinstance(i, slice):
            s = '' if i.start is None else str(i.start)
            s += ':' + ('' if i.stop is None else str(i.stop))
            if i.step is not None:
                s += ':' + str(i.step)
            parts.append(s)
        elif i is Ellipsis:
            parts.append('...')
        else:
            parts.append(str(i))
    return '[' + ','.join(parts) + ']'


class Lowering:
    def __init__(self, gm, vals, prefix_strip='', input_names=(), fold=True):
        self.gm = gm
        self.fold = fold
        self.input_names = list(input_names)
        self.vals = vals
        self.strip = prefix_strip
        self.nodes = list(gm.graph.nodes)
        self.tensors = collections.OrderedDict()   # name -> dict
        self.ops = []
        self.op_names = set()
        self.producer = {}                          # tensor name -> op dict
        self.tmap = {}                              # fx node -> tensor name | list
        self.kind = {}
        self.outputs = []

    # ---- helpers ---------------------------------------------------------
    def clean(self, s):
        if self.strip and s.startswith(self.strip):
            s = s[len(self.strip):]
        return s

    def uniq_op(self, base):
        name, i = base, 0
        while name in self.op_names:
            i += 1
            name = '%s_%d' % (base, i)
        self.op_names.add(name)
        return name

    def add_tensor(self, name, shape, kind=None):
        assert name not in self.tensors, name
        t = {'name': name, 'shape': list(shape), 'dtype': 'int8'}
        if kind:
            t['kind'] = kind
        self.tensors[name] = t
        return name

    def is_t(self, n):
        return isinstance(n, fx.Node) and isinstance(self.vals.get(n), TS)

    def tensor_args(self, n):
        out = []
        fx.node.map_arg((n.args, n.kwargs), lambda a: out.append(a))
        return [a for a in out if self.is_t(a)]

    def module(self, n):
        return self.gm.get_submodule(n.target)

    # ---- classification ---------------------------------------------------
    def classify(self, n):
        v = self.vals.get(n)
        if n.op == 'placeholder':
            return 'input'
        if n.op == 'output':
            return 'output'
        if n.op == 'get_attr':
            return 'param' if isinstance(v, TS) else 'none'
        if n.op == 'call_module':
            m = self.module(n)
            if isinstance(m, DROPOUT + (nn.Identity, nas_models.Identity, nn.Flatten)):
                return 'alias'
            if isinstance(m, BN + ACT):
                return 'unary'
            return 'op'
        if n.op == 'call_function' and n.target is operator.getitem:
            src = n.args[0]
            if isinstance(self.vals.get(src), TS):
                return 'op'                      # tensor slicing: a real op
            if isinstance(v, TS):
                return 'select'                  # element of a multi-output op
            return 'none'
        if not isinstance(v, TS):
            if isinstance(v, list) and any(isinstance(x, TS) for x in v) and \
                    self.tensor_args(n):
                return 'op'                      # multi-output (split/chunk)
            return 'none'
        targs = self.tensor_args(n)
        if n.op == 'call_function':
            if n.target in ALIAS_FUNCS:
                return 'alias'
            if n.target in UNARY_FUNCS:
                return 'unary'
            if n.target in ARITH and len(targs) == 1:
                return 'unary'                   # tensor (op) constant
        if n.op == 'call_method':
            if n.target in ALIAS_METHODS:
                return 'alias'
            if n.target in UNARY_METHODS:
                return 'unary'
            if n.target in ARITH_METHODS and len(targs) == 1:
                return 'unary'
        return 'op'

    def alias_src(self, n):
        return self.tensor_args(n)[0] if n.op != 'call_module' else n.args[0]

    def alias_root(self, n):
        while self.kind[n] == 'alias':
            n = self.alias_src(n)
        return n

    def eff_users(self, n, acc=None):
        acc = set() if acc is None else acc
        for u in n.users:
            if self.kind.get(u) == 'alias':
                self.eff_users(u, acc)
            else:
                acc.add(u)
        return acc

    # ---- op construction --------------------------------------------------
    def op_base(self, n):
        if n.op == 'call_module':
            return self.clean(n.target)
        scope = self.clean(n.meta.get('scope', ''))
        short = self.op_type(n)
        return (scope + '.' + short) if scope else short

    def op_type(self, n):
        if n.op == 'call_module':
            m = self.module(n)
            cls = type(m).__name__
            if isinstance(m, CONV):
                return 'conv%dd' % (len(m.kernel_size))
            if isinstance(m, DECONV):
                return 'conv_transpose%dd' % (len(m.kernel_size))
            if isinstance(m, nn.Linear):
                return 'linear'
            if isinstance(m, BN):
                return 'batch_norm'
            if isinstance(m, PAD):
                return 'pad'
            table = {'LayerNorm': 'layer_norm', 'GroupNorm': 'group_norm',
                     'Softmax': 'softmax', 'Upsample': 'interpolate',
                     'ReLU': 'relu', 'ReLU6': 'relu6', 'Hardswish': 'hardswish',
                     'Hardsigmoid': 'hardsigmoid', 'SiLU': 'silu',
                     'GELU': 'gelu', 'PReLU': 'prelu', 'Sigmoid': 'sigmoid',
                     'Tanh': 'tanh', 'MaxPool1d': 'max_pool1d',
                     'MaxPool2d': 'max_pool2d', 'MaxPool3d': 'max_pool3d',
                     'AvgPool1d': 'avg_pool1d', 'AvgPool2d': 'avg_pool2d',
                     'AvgPool3d': 'avg_pool3d',
                     'AdaptiveAvgPool1d': 'adaptive_avg_pool1d',
                     'AdaptiveAvgPool2d': 'adaptive_avg_pool2d',
                     'AdaptiveAvgPool3d': 'adaptive_avg_pool3d',
                     'AdaptiveMaxPool2d': 'adaptive_max_pool2d'}
            return table.get(cls, cls.lower())
        if n.op == 'call_function':
            if n.target is operator.getitem:
                return 'slice'
            for tab in (UNARY_FUNCS, ARITH, FUNC_TYPES):
                if n.target in tab:
                    return tab[n.target]
            return _fname(n.target).lower()
        if n.op == 'call_method':
            for tab in (UNARY_METHODS, ARITH_METHODS, METHOD_TYPES):
                if n.target in tab:
                    return tab[n.target]
            return n.target.lower()
        return n.op

    def arg(self, n, pos, key, default=None):
        if key in n.kwargs:
            return n.kwargs[key]
        if len(n.args) > pos:
            return n.args[pos]
        return default

    def op_attrs(self, n, typ):
        a = {}
        if n.op == 'call_module':
            m = self.module(n)
            if isinstance(m, CONV + DECONV):
                nd = len(m.kernel_size)
                a['kernel'] = list(m.kernel_size)
                a['stride'] = list(m.stride)
                if isinstance(m.padding, str):
                    a['padding'] = m.padding
                else:
                    a['padding'] = list(m.padding)
                if isinstance(m, DECONV) and any(m.output_padding):
                    a['output_padding'] = list(m.output_padding)
                a['groups'] = m.groups
                if any(d != 1 for d in m.dilation):
                    a['dilation'] = list(m.dilation)
            elif isinstance(m, nn.Linear):
                a['in_features'] = m.in_features
                a['out_features'] = m.out_features
            elif isinstance(m, (nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d,
                                nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d)):
                nd = int(typ[-2])
                a['kernel'] = _ntuple(m.kernel_size, nd)
                a['stride'] = _ntuple(m.stride if m.stride is not None else m.kernel_size, nd)
                a['padding'] = _ntuple(m.padding, nd)
                if getattr(m, 'ceil_mode', False):
                    a['ceil_mode'] = True
                if isinstance(m, (nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d)) and \
                        _ntuple(m.dilation, nd) != [1] * nd:
                    a['dilation'] = _ntuple(m.dilation, nd)
            elif isinstance(m, POOL):
                nd = int(typ[-2])
                os_ = m.output_size
                os_ = list(os_) if isinstance(os_, (tuple, list)) else [os_] * nd
                a['output_size'] = [None if x is None else int(x) for x in os_]
            elif isinstance(m, nn.LayerNorm):
                a['normalized_shape'] = list(m.normalized_shape)
            elif isinstance(m, nn.Softmax):
                a['dim'] = m.dim
            elif isinstance(m, nn.Upsample):
                a['mode'] = m.mode
            elif isinstance(m, PAD):
                a['pad'] = list(m.padding)
        elif typ == 'concat':
            dim = self.arg(n, 1, 'dim', 0)
            a['axis'] = dim
        elif typ == 'interpolate':
            a['mode'] = self.arg(n, 3, 'mode', 'nearest')
            ac = self.arg(n, 4, 'align_corners', None)
            if ac is not None:
                a['align_corners'] = bool(ac)
        elif typ in ('adaptive_avg_pool2d', 'adaptive_avg_pool3d'):
            os_ = self.arg(n, 1, 'output_size')
            a['output_size'] = _ntuple(os_, int(typ[-2]))
        elif typ in ('mean', 'sum'):
            dim = self.arg(n, 1, 'dim')
            if dim is not None:
                a['dims'] = list(dim) if isinstance(dim, (list, tuple)) else [dim]
            if self.arg(n, 2, 'keepdim', False):
                a['keepdim'] = True
        elif typ == 'softmax':
            a['dim'] = self.arg(n, 1, 'dim')
        elif typ == 'slice':
            a['index'] = _fmt_index(n.args[1])
        elif typ == 'pad':
            a['pad'] = list(self.arg(n, 1, 'pad'))
        return a

    def module_params(self, n, name):
        """(param tensor names) for a call_module op."""
        m = self.module(n)
        ps = []
        if isinstance(m, CONV + DECONV + (nn.Linear,)):
            ps.append(self.add_tensor(name + '.weight', m.weight.shape, 'param'))
            if m.bias is not None:
                ps.append(self.add_tensor(name + '.bias', m.bias.shape, 'param'))
        elif isinstance(m, BN):
            c = m.num_features
            ps.append(self.add_tensor(name + '.weight', [c], 'param'))
            ps.append(self.add_tensor(name + '.bias', [c], 'param'))
        elif isinstance(m, (nn.LayerNorm, nn.GroupNorm)):
            if getattr(m, 'weight', None) is not None:
                ps.append(self.add_tensor(name + '.weight', m.weight.shape, 'param'))
            if getattr(m, 'bias', None) is not None:
                ps.append(self.add_tensor(name + '.bias', m.bias.shape, 'param'))
        elif isinstance(m, nn.PReLU):
            ps.append(self.add_tensor(name + '.weight', m.weight.shape, 'param'))
        return ps

    def emit(self, name, typ, inputs, out_shapes, attrs=None):
        """Emit one op; out_shapes: list of shapes -> returns output names."""
        if len(out_shapes) == 1:
            outs = [name]
        else:
            outs = ['%s:%d' % (name, i) for i in range(len(out_shapes))]
        for o, s in zip(outs, out_shapes):
            self.add_tensor(o, s)
        op = {'name': name, 'type': typ, 'inputs': list(inputs),
              'outputs': outs}
        if attrs:
            op['attrs'] = attrs
        self.ops.append(op)
        for o in outs:
            self.producer[o] = op
        return outs

    # ---- multi-head attention expansion -------------------------------------
    def emit_mha(self, n):
        m = self.module(n)
        base = self.clean(n.target)
        q_n = self.arg(n, 0, 'query')
        k_n = self.arg(n, 1, 'key')
        v_n = self.arg(n, 2, 'value')
        assert self.arg(n, 4, 'attn_mask') is None and \
            self.arg(n, 3, 'key_padding_mask') is None, 'masks not supported'
        assert m._qkv_same_embed_dim and m.bias_k is None
        E, H = m.embed_dim, m.num_heads
        hd = E // H
        qs, ks = self.vals[q_n].shape, self.vals[k_n].shape
        if m.batch_first:
            N, L, S = qs[0], qs[1], ks[1]
        else:
            L, N, S = qs[0], qs[1], ks[0]
        has_b = m.in_proj_bias is not None
        proj = {}
        for j, (tag, src) in enumerate((('q_proj', q_n), ('k_proj', k_n),
                                        ('v_proj', v_n))):
            name = self.uniq_op('%s.%s' % (base, tag))
            ps = [self.add_tensor(name + '.weight', [E, E], 'param')]
            if has_b:
                ps.append(self.add_tensor(name + '.bias', [E], 'param'))
            shp = list(self.vals[src].shape[:-1]) + [E]
            attrs = {'in_features': E, 'out_features': E}
            if tag == 'q_proj':
                attrs['fused'] = ['scale']      # q * 1/sqrt(head_dim)
            proj[tag] = self.emit(name, 'linear', [self.tmap[src]] + ps, [shp],
                                  attrs)[0]
        name = self.uniq_op(base + '.scores')
        scores = self.emit(name, 'matmul', [proj['q_proj'], proj['k_proj']],
                           [[N * H, L, S]],
                           {'transpose_b': True, 'heads': H})[0]
        name = self.uniq_op(base + '.softmax')
        probs = self.emit(name, 'softmax', [scores], [[N * H, L, S]],
                          {'dim': -1})[0]
        name = self.uniq_op(base + '.context')
        ctx = self.emit(name, 'matmul', [probs, proj['v_proj']],
                        [[N * H, L, hd]], {'heads': H})[0]
        name = self.uniq_op(base + '.out_proj')
        ps = [self.add_tensor(name + '.weight', list(m.out_proj.weight.shape), 'param')]
        if m.out_proj.bias is not None:
            ps.append(self.add_tensor(name + '.bias', [E], 'param'))
        out_shape = self.vals[n][0].shape
        out = self.emit(name, 'linear', [ctx] + ps, [out_shape],
                        {'in_features': E, 'out_features': E})[0]
        self.tmap[n] = [out, None]

    # ---- main ---------------------------------------------------------------
    def run(self):
        for n in self.nodes:
            self.kind[n] = self.classify(n)
        for n in self.nodes:
            k = self.kind[n]
            if k == 'none':
                continue
            if k == 'input':
                name = self.input_names.pop(0) if self.input_names else n.name
                self.tmap[n] = self.add_tensor(name, self.vals[n].shape, 'input')
            elif k == 'param':
                self.tmap[n] = self.add_tensor(self.clean(n.target),
                                               self.vals[n].shape, 'param')
            elif k == 'alias':
                self.tmap[n] = self.tmap[self.alias_src(n)]
            elif k == 'select':
                src = n.args[0]
                self.tmap[n] = self.tmap[src][n.args[1]]
            elif k == 'unary':
                self.lower_unary(n)
            elif k == 'op':
                self.lower_op(n)
            elif k == 'output':
                fx.node.map_arg(n.args, lambda a: self.outputs.append(a)
                                if self.is_t(a) else None)
        self.finish()

    def lower_unary(self, n):
        src = self.tensor_args(n)[0] if n.op != 'call_module' else n.args[0]
        root = self.alias_root(src)
        t = self.tmap[src]
        prod = self.producer.get(t)
        if self.fold and prod is not None and len(prod['outputs']) == 1 and \
                self.eff_users(root) == {n}:
            # fold into the producer
            typ = self.op_type(n)
            prod.setdefault('attrs', {}).setdefault('fused', []).append(typ)
            if typ == 'batch_norm' and prod['type'].startswith(
                    ('conv', 'linear')) and prod['name'] + '.bias' not in self.tensors:
                m = self.module(n)
                prod['inputs'].append(self.add_tensor(
                    prod['name'] + '.bias', [m.num_features], 'param'))
            self.tmap[n] = t
            return
        self.lower_op(n)

    def lower_op(self, n):
        if n.op == 'call_module' and isinstance(self.module(n), nn.MultiheadAttention):
            return self.emit_mha(n)
        typ = self.op_type(n)
        name = self.uniq_op(self.op_base(n))
        inputs = []
        for a in self.tensor_args(n):
            inputs.append(self.tmap[a])
        params = self.module_params(n, name) if n.op == 'call_module' else []
        v = self.vals[n]
        if isinstance(v, TS):
            shapes = [v.shape]
        else:
            shapes = [x.shape for x in v]
            assert all(isinstance(x, TS) for x in v)
        outs = self.emit(name, typ, inputs + params, shapes, self.op_attrs(n, typ))
        self.tmap[n] = outs[0] if isinstance(v, TS) else outs

    def finish(self):
        out_names = []
        for a in self.outputs:
            t = self.tmap[a]
            if self.tensors[t].get('kind') in ('input', 'param'):
                continue
            if t not in out_names:
                out_names.append(t)
        for t in out_names:
            self.tensors[t]['kind'] = 'output'
        # dead code elimination
        live = set(out_names)
        keep = []
        for op in reversed(self.ops):
            if any(o in live for o in op['outputs']):
                keep.append(op)
                live.update(op['inputs'])
        self.ops = list(reversed(keep))
        used = set()
        for op in self.ops:
            used.update(op['inputs'])
            used.update(op['outputs'])
        self.tensors = collections.OrderedDict(
            (k, v) for k, v in self.tensors.items() if k in used)
        # tensor order: inputs first, then by first appearance in op order
        order = [k for k, v in self.tensors.items() if v.get('kind') == 'input']
        seen = set(order)
        for op in self.ops:
            for t in op['inputs'] + op['outputs']:
                if t not in seen:
                    seen.add(t)
                    order.append(t)
        self.tensors = [self.tensors[k] for k in order]


def trace_model(model, inputs, prefix_strip='', fold=True):
    """inputs: OrderedDict graph-input name -> shape (forward arg order)."""
    input_shapes = list(inputs.values())
    model.eval()
    tracer = Tracer()
    graph = tracer.trace(model)
    gm = fx.GraphModule(tracer.root, graph)
    rec = Recorder(gm)
    with torch.no_grad():
        rec.run(*[torch.zeros(s) for s in input_shapes])
    low = Lowering(gm, rec.vals, prefix_strip, inputs.keys(), fold)
    low.run()
    return low.tensors, low.ops


# --------------------------------------------------------------------------
# model zoo
# --------------------------------------------------------------------------
class FSRCNN(nn.Module):
    """FSRCNN (Dong et al., ECCV 2016), d=56, s=12, m=4, upscaling x3."""

    def __init__(self, d=56, s=12, m=4, scale=3, channels=1):
        super().__init__()
        self.feature = nn.Conv2d(channels, d, 5, padding=2)
        self.feature_act = nn.PReLU(d)
        self.shrink = nn.Conv2d(d, s, 1)
        self.shrink_act = nn.PReLU(s)
        layers = []
        for _ in range(m):
            layers += [nn.Conv2d(s, s, 3, padding=1), nn.PReLU(s)]
        self.map = nn.Sequential(*layers)
        self.expand = nn.Conv2d(s, d, 1)
        self.expand_act = nn.PReLU(d)
        self.deconv = nn.ConvTranspose2d(d, channels, 9, stride=scale,
                                         padding=4, output_padding=scale - 1)

    def forward(self, x):
        x = self.feature_act(self.feature(x))
        x = self.shrink_act(self.shrink(x))
        x = self.map(x)
        x = self.expand_act(self.expand(x))
        return self.deconv(x)


def _enc_layer_forward(self, src):
    # TransformerEncoderLayer.forward without the fast-path checks (which call
    # bool() on traced values); identical math for norm_first=False, no masks.
    x = src
    x = self.norm1(x + self._sa_block(x, None, None))
    x = self.norm2(x + self._ff_block(x))
    return x


def _encoder_forward(self, src):
    out = src
    for mod in self.layers:
        out = mod(out)
    if self.norm is not None:
        out = self.norm(out)
    return out


class TracedTransformer(nn.Transformer):
    """nn.Transformer() with defaults; forward(src, tgt) without masks and
    without the python-side input checks (not traceable)."""

    def __init__(self):
        super().__init__()
        self.encoder.forward = types.MethodType(_encoder_forward, self.encoder)
        for layer in self.encoder.layers:
            assert not layer.norm_first
            layer.forward = types.MethodType(_enc_layer_forward, layer)

    def forward(self, src, tgt):
        memory = self.encoder(src)
        return self.decoder(tgt, memory)


IMG = (1, 3, 224, 224)
VID = (1, 3, 16, 224, 224)
TV = 'torchvision %s' % torchvision.__version__.split('a')[0]


def _tv(fn, **kw):
    return lambda: fn(weights=None, **kw)


def _seg(fn, **kw):
    return lambda: fn(weights=None, weights_backbone=None, aux_loss=False, **kw)


# name -> (builder, input shapes (dict name -> shape), source text)
NETWORKS = collections.OrderedDict([
    ('resnet50', (_tv(tvm.resnet50), {'x': IMG}, TV + ' resnet50(weights=None)')),
    ('densenet121', (_tv(tvm.densenet121), {'x': IMG}, TV + ' densenet121(weights=None)')),
    ('resnext50_32x4d', (_tv(tvm.resnext50_32x4d), {'x': IMG}, TV + ' resnext50_32x4d(weights=None)')),
    ('r2plus1d_18', (_tv(tvvid.r2plus1d_18), {'x': VID}, TV + ' video.r2plus1d_18(weights=None), 16-frame clip')),
    ('s3d', (_tv(tvvid.s3d), {'x': VID}, TV + ' video.s3d(weights=None), 16-frame clip')),
    ('fcn_resnet50', (_seg(tvseg.fcn_resnet50), {'x': IMG},
                      TV + ' segmentation.fcn_resnet50(weights=None, weights_backbone=None, aux_loss=False), output "out"')),
    ('lraspp_mobilenet_v3_large', (lambda: tvseg.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None),
                                   {'x': IMG},
                                   TV + ' segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None), output "out"')),
    ('deeplabv3_resnet50', (_seg(tvseg.deeplabv3_resnet50), {'x': IMG},
                            TV + ' segmentation.deeplabv3_resnet50(weights=None, weights_backbone=None, aux_loss=False), output "out"')),
    ('transformer', (TracedTransformer, {'src': (10, 32, 512), 'tgt': (20, 32, 512)},
                     'torch %s nn.Transformer() defaults (d_model 512, 8 heads, 6+6 layers, ff 2048, post-norm), '
                     'src (10,32,512), tgt (20,32,512), no masks; MultiheadAttention expanded into q/k/v linear, '
                     'q.k^T matmul, softmax, attn.v matmul, out linear' % torch.__version__.split('a')[0])),
    ('vit_b_16', (_tv(tvm.vit_b_16), {'x': IMG},
                  TV + ' vit_b_16(weights=None); MultiheadAttention expanded into q/k/v linear, q.k^T matmul, '
                  'softmax, attn.v matmul, out linear')),
    ('inception_v3', (_tv(tvm.inception_v3, aux_logits=False, init_weights=False), {'x': (1, 3, 299, 299)},
                      TV + ' inception_v3(weights=None, aux_logits=False, init_weights=False) at its native 299x299 input')),
    ('mobilenet_v2', (_tv(tvm.mobilenet_v2), {'x': IMG}, TV + ' mobilenet_v2(weights=None)')),
    ('squeezenet1_1', (_tv(tvm.squeezenet1_1), {'x': IMG}, TV + ' squeezenet1_1(weights=None)')),
    ('mnasnet1_3', (_tv(tvm.mnasnet1_3), {'x': IMG}, TV + ' mnasnet1_3(weights=None)')),
    ('resnet101', (_tv(tvm.resnet101), {'x': IMG}, TV + ' resnet101(weights=None)')),
    ('vgg16', (_tv(tvm.vgg16), {'x': IMG}, TV + ' vgg16(weights=None)')),
    ('alexnet', (_tv(tvm.alexnet), {'x': IMG}, TV + ' alexnet(weights=None)')),
    ('fsrcnn', (FSRCNN, {'x': (1, 1, 224, 224)},
                'FSRCNN (Dong et al. 2016) d=56 s=12 m=4, x3 upscaling, single-channel 224x224 input, '
                'written in data/gen/gen_networks.py')),
    ('darts', (nas_models.DartsImageNet, {'x': IMG},
               'DARTS ImageNet network (Liu et al. 2019), genotype DARTS_V2, C=48, 14 cells, '
               'written from the published genotype in data/gen/nas_models.py')),
    ('nasnet_a', (nas_models.nasnet_a_mobile, {'x': IMG},
                  'NASNet-A Mobile 4@1056 (Zoph et al. 2018), written from the published cells '
                  'in data/gen/nas_models.py (symmetric "same" padding instead of TF asymmetric padding)')),
    ('pnasnet5', (nas_models.pnasnet5_mobile, {'x': IMG},
                  'PNASNet-5 Mobile (Liu et al. 2018; TF-slim mobile config: 9 cells, 54 filters, 32 stem filters), '
                  'written from the published cell in data/gen/nas_models.py')),
    ('amoebanet_d', (nas_models.amoebanet_d, {'x': IMG},
                     'AmoebaNet-D(18, 256) (Real et al. 2019, configuration used by GPipe/torchgpipe), '
                     'written from the published genotype in data/gen/nas_models.py')),
    ('squeezenet1_0', (_tv(tvm.squeezenet1_0), {'x': IMG}, TV + ' squeezenet1_0(weights=None)')),
    ('mobilenet_v1', (taa_models.MobileNetV1, {'x': IMG},
                      'MobileNet v1 1.0/224 (Howard et al. 2017), written in data/gen/taa_models.py')),
    ('inception_v4', (taa_models.InceptionV4, {'x': (1, 3, 299, 299)},
                      'Inception v4 (Szegedy et al. 2017) at its native 299x299 input, written in data/gen/taa_models.py')),
    ('resnet_v2_101', (taa_models.resnet_v2_101, {'x': IMG},
                       'ResNet V2 101 (He et al. 2016, pre-activation bottlenecks [3,4,23,3]), '
                       'written in data/gen/taa_models.py')),
])

SUFFIX = ', traced with torch.fx, BN/activations folded into producers, views as aliases, int8 activations'
SUFFIX_UNFOLDED = (', traced with torch.fx, BN/activations kept as ops (not folded), views as aliases, '
                   'int8 activations')
# --unfold's default: the COSMA paper's ten human-designed networks (its Fig. 3)
UNFOLDED_DEFAULT = ('resnet50', 'densenet121', 'resnext50_32x4d', 'r2plus1d_18', 's3d', 'fcn_resnet50',
                    'lraspp_mobilenet_v3_large', 'deeplabv3_resnet50', 'transformer', 'vit_b_16')


def to_json(name, source, tensors, ops):
    lines = ['{',
             '"format": "spadmap-network", "version": 1,',
             '"name": %s,' % json.dumps(name),
             '"source": %s,' % json.dumps(source),
             '"tensors": [']
    sep = (', ', ': ')
    lines += [json.dumps(t, separators=sep) + (',' if i + 1 < len(tensors) else '')
              for i, t in enumerate(tensors)]
    lines += ['],', '"ops": [']
    lines += [json.dumps(o, separators=sep) + (',' if i + 1 < len(ops) else '')
              for i, o in enumerate(ops)]
    lines += [']', '}']
    return '\n'.join(lines) + '\n'


def nbytes(t):
    s = 1
    for d in t['shape']:
        s *= d
    return s


# --------------------------------------------------------------------------
# hand-made teaching graphs (rank-1 shapes = bytes)
# --------------------------------------------------------------------------
def small_graph(name, source, inputs, ops, outputs):
    """inputs: {name: bytes}; ops: [(op, type, [inputs], out_bytes)]."""
    tensors = [{'name': k, 'shape': [v], 'dtype': 'int8', 'kind': 'input'}
               for k, v in inputs.items()]
    js_ops = []
    for op, typ, ins, size in ops:
        t = {'name': op, 'shape': [size], 'dtype': 'int8'}
        if op in outputs:
            t['kind'] = 'output'
        tensors.append(t)
        js_ops.append({'name': op, 'type': typ, 'inputs': ins, 'outputs': [op]})
    return tensors, js_ops


KB = 1024
TEACHING = collections.OrderedDict([
    ('fig1', ('hand-made teaching graph in the spirit of Fig. 1 of the COSMA paper: a branching DAG '
              'whose tensors a0..a6 need spills under a tight budget (rank-1 shapes = bytes)',
              {'a0': 4 * KB},
              [('a1', 'op', ['a0'], 8 * KB),
               ('a2', 'op', ['a1'], 4 * KB),
               ('a3', 'op', ['a1'], 2 * KB),
               ('a4', 'op', ['a2'], 4 * KB),
               ('a5', 'add', ['a3', 'a4'], 4 * KB),
               ('a6', 'add', ['a5', 'a0'], 2 * KB)],
              ['a6'])),
    ('chain', ('hand-made teaching graph: 5 ops in a line (rank-1 shapes = bytes)',
               {'x': 2 * KB},
               [('c1', 'op', ['x'], 4 * KB),
                ('c2', 'op', ['c1'], 8 * KB),
                ('c3', 'op', ['c2'], 4 * KB),
                ('c4', 'op', ['c3'], 2 * KB),
                ('c5', 'op', ['c4'], 1 * KB)],
               ['c5'])),
    ('diamond', ('hand-made teaching graph: fork and join; the default (breadth-first) order peaks '
                 'at 18 KB, the depth-first order at 11 KB (rank-1 shapes = bytes)',
                 {'x': 2 * KB},
                 [('t0', 'op', ['x'], 2 * KB),
                  ('l1', 'op', ['t0'], 8 * KB),
                  ('r1', 'op', ['t0'], 8 * KB),
                  ('l2', 'op', ['l1'], 1 * KB),
                  ('r2', 'op', ['r1'], 1 * KB),
                  ('join', 'add', ['l2', 'r2'], 1 * KB)],
                 ['join'])),
    ('skip', ('hand-made teaching graph: a long skip connection keeps s1 live across s2..s4 '
              '(rank-1 shapes = bytes)',
              {'x': 2 * KB},
              [('s1', 'op', ['x'], 4 * KB),
               ('s2', 'op', ['s1'], 4 * KB),
               ('s3', 'op', ['s2'], 8 * KB),
               ('s4', 'op', ['s3'], 4 * KB),
               ('s5', 'add', ['s4', 's1'], 4 * KB),
               ('s6', 'op', ['s5'], 1 * KB)],
              ['s6'])),
])


# The TAA paper's Section III.C setting as a small graph: 4x128x128 int8 tensors
# (CHW, row-major) run in row tiles given per op by the optional "tiles" field,
# so the off-chip map shows each tile's chunks as stripes. x stays live until
# the add, so y1..y3 must fit around its still-live tiles.
TAA_EXAMPLE = ('taa_example',
               'hand-made graph after Section III.C of the TAA paper (Kvochko et al. 2024): 4x128x128 '
               'tensors processed in row tiles (the ops\' "tiles" field), for the off-chip map')


def taa_example():
    c, h, w = 4, 128, 128
    tensors = [{'name': 'x', 'shape': [c, h, w], 'dtype': 'int8', 'kind': 'input'},
               {'name': 'y1', 'shape': [c, h, w], 'dtype': 'int8'},
               {'name': 'y2', 'shape': [c, h, w], 'dtype': 'int8'},
               {'name': 'y3', 'shape': [c, h, w], 'dtype': 'int8'},
               {'name': 'out', 'shape': [c, h // 2, w // 2], 'dtype': 'int8', 'kind': 'output'}]
    ops = [{'name': 'relu1', 'type': 'relu', 'inputs': ['x'], 'outputs': ['y1'], 'tiles': 4},
           {'name': 'conv', 'type': 'conv2d', 'inputs': ['y1'], 'outputs': ['y2'], 'tiles': 2,
            'attrs': {'kernel': [1, 1], 'stride': [1, 1], 'padding': [0, 0], 'groups': 1}},
           {'name': 'add', 'type': 'add', 'inputs': ['y2', 'x'], 'outputs': ['y3'], 'tiles': 2},
           {'name': 'pool', 'type': 'max_pool2d', 'inputs': ['y3'], 'outputs': ['out'], 'tiles': 2,
            'attrs': {'kernel': [2, 2], 'stride': [2, 2], 'padding': [0, 0]}}]
    return tensors, ops


def main(argv):
    want = [a for a in argv[1:] if a != '--unfold']
    if '--unfold' in argv[1:]:
        return main_unfolded(want or list(UNFOLDED_DEFAULT))
    os.makedirs(OUT_DIR, exist_ok=True)
    rows = []
    if not want or TAA_EXAMPLE[0] in want:
        tensors, js_ops = taa_example()
        write(TAA_EXAMPLE[0], TAA_EXAMPLE[1], tensors, js_ops, rows, '(4,128,128)')
    for name, (src, ins, ops, outs) in TEACHING.items():
        if want and name not in want:
            continue
        tensors, js_ops = small_graph(name, src, ins, ops, outs)
        write(name, src, tensors, js_ops, rows, 'x'.join('(%d)' % v for v in ins.values()))
    for name, (builder, inputs, source) in NETWORKS.items():
        if want and name not in want:
            continue
        torch.manual_seed(0)
        model = builder()
        tensors, ops = trace_model(model, inputs)
        del model
        shp = ' '.join('(%s)' % ','.join(str(d) for d in s) for s in inputs.values())
        write(name, source + SUFFIX, tensors, ops, rows, shp)
    print_rows(rows)
    return 0


def main_unfolded(want):
    """--unfold: the networks named (torchvision and nas models only), nothing folded."""
    out_dir = os.path.join(OUT_DIR, 'unfolded')
    os.makedirs(out_dir, exist_ok=True)
    rows = []
    for name in want:
        if name not in NETWORKS:
            sys.stderr.write('gen_networks.py --unfold: unknown network %s\n' % name)
            return 1
        builder, inputs, source = NETWORKS[name]
        torch.manual_seed(0)
        model = builder()
        tensors, ops = trace_model(model, inputs, fold=False)
        del model
        shp = ' '.join('(%s)' % ','.join(str(d) for d in s) for s in inputs.values())
        write(name, source + SUFFIX_UNFOLDED, tensors, ops, rows, shp, out_dir)
    print_rows(rows)
    return 0


def print_rows(rows):
    print('| network | ops | tensors | input shape | activation bytes total |')
    print('|---|---:|---:|---|---:|')
    for r in rows:
        print('| %s | %d | %d | %s | %d |' % r)


def write(name, source, tensors, ops, rows, shp, out_dir=OUT_DIR):
    text = to_json(name, source, tensors, ops)
    path = os.path.join(out_dir, name + '.json')
    with open(path, 'w') as f:
        f.write(text)
    act = sum(nbytes(t) for t in tensors if t.get('kind') != 'param')
    rows.append((name, len(ops), len(tensors), shp, act))
    sys.stderr.write('wrote %s: %d ops, %d tensors\n' % (path, len(ops), len(tensors)))


if __name__ == '__main__':
    sys.exit(main(sys.argv))
