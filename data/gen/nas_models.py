"""Plain nn.Module implementations of NAS-found ImageNet networks, written from
the published cell/genotype descriptions (only the graph structure matters for
spadmap: weights are random and never used).

* DARTS (Liu et al., ICLR 2019), genotype DARTS_V2, ImageNet setting
  (C=48, 14 cells, two stride-2 conv stems).
* NASNet-A Mobile (Zoph et al., CVPR 2018), "4 @ 1056": N=4 normal cells per
  stage, 44 filters in the first stage, ImageNet stem (3x3/2 conv + two
  reduction stem cells).
* PNASNet-5 Mobile (Liu et al., ECCV 2018), TF-slim mobile config: 9 cells
  (reductions at cells 3 and 6 use the same cell with stride 2), 54 filters,
  ImageNet stem like NASNet.
* AmoebaNet-D (Real et al. 2019; the GPipe/torchgpipe AmoebaNet-D(18, 256)
  configuration): ImageNet stem (3x3/2 conv + two reduction cells), 3 x 6
  normal cells, 2 reduction cells, genotype as in the TF reference
  implementation (normal concat [0, 3, 4, 6]).

The modules are written so that torch.fx can trace through them: every compute
step is a leaf nn.Module (Conv2d, BatchNorm2d, ReLU, pools) or a plain
torch/operator call.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


# --------------------------------------------------------------------------
# shared building blocks
# --------------------------------------------------------------------------
class ReLUConvBN(nn.Module):
    """ReLU -> conv (no bias) -> BN."""

    def __init__(self, c_in, c_out, k=1, stride=1, pad=0):
        super().__init__()
        self.relu = nn.ReLU()
        self.conv = nn.Conv2d(c_in, c_out, k, stride, pad, bias=False)
        self.bn = nn.BatchNorm2d(c_out)

    def forward(self, x):
        return self.bn(self.conv(self.relu(x)))


class SepConvBlock(nn.Module):
    """One ReLU -> depthwise kxk -> pointwise 1x1 -> BN layer."""

    def __init__(self, c_in, c_out, k, stride, dilation=1):
        super().__init__()
        pad = dilation * (k - 1) // 2
        self.relu = nn.ReLU()
        self.dw = nn.Conv2d(c_in, c_in, k, stride, pad, dilation=dilation,
                            groups=c_in, bias=False)
        self.pw = nn.Conv2d(c_in, c_out, 1, bias=False)
        self.bn = nn.BatchNorm2d(c_out)

    def forward(self, x):
        return self.bn(self.pw(self.dw(self.relu(x))))


class SepConv(nn.Module):
    """Stacked separable conv used by DARTS/NASNet/PNASNet/AmoebaNet:
    two SepConvBlocks, the first one strided (and changing channels)."""

    def __init__(self, c_in, c_out, k, stride):
        super().__init__()
        self.sep1 = SepConvBlock(c_in, c_out, k, stride)
        self.sep2 = SepConvBlock(c_out, c_out, k, 1)

    def forward(self, x):
        return self.sep2(self.sep1(x))


class DilConv(nn.Module):
    """DARTS dil_conv: ReLU -> dilated depthwise -> pointwise -> BN."""

    def __init__(self, c_in, c_out, k, stride, dilation):
        super().__init__()
        self.op = SepConvBlock(c_in, c_out, k, stride, dilation)

    def forward(self, x):
        return self.op(x)


class FactorizedReduce(nn.Module):
    """DARTS FactorizedReduce: ReLU, two 1x1 stride-2 convs on x and on x
    shifted by one pixel, concat, BN."""

    def __init__(self, c_in, c_out):
        super().__init__()
        self.relu = nn.ReLU()
        self.conv_1 = nn.Conv2d(c_in, c_out // 2, 1, stride=2, bias=False)
        self.conv_2 = nn.Conv2d(c_in, c_out - c_out // 2, 1, stride=2, bias=False)
        self.bn = nn.BatchNorm2d(c_out)

    def forward(self, x):
        x = self.relu(x)
        out = torch.cat([self.conv_1(x), self.conv_2(x[:, :, 1:, 1:])], dim=1)
        return self.bn(out)


class PathReduce(nn.Module):
    """NASNet/PNASNet factorized reduction of the previous-previous state
    (TF-slim `factorized_reduction`): ReLU, path 1 = 1x1 avg-pool stride 2 +
    1x1 conv, path 2 = same on the input shifted by one pixel (zero pad at the
    bottom/right, drop first row/column), concat, BN."""

    def __init__(self, c_in, c_out):
        super().__init__()
        self.relu = nn.ReLU()
        self.path1_pool = nn.AvgPool2d(1, stride=2, count_include_pad=False)
        self.path1_conv = nn.Conv2d(c_in, c_out // 2, 1, bias=False)
        self.path2_pad = nn.ZeroPad2d((0, 1, 0, 1))
        self.path2_pool = nn.AvgPool2d(1, stride=2, count_include_pad=False)
        self.path2_conv = nn.Conv2d(c_in, c_out - c_out // 2, 1, bias=False)
        self.bn = nn.BatchNorm2d(c_out)

    def forward(self, x):
        x = self.relu(x)
        p1 = self.path1_conv(self.path1_pool(x))
        p2 = self.path2_pad(x)[:, :, 1:, 1:]
        p2 = self.path2_conv(self.path2_pool(p2))
        return self.bn(torch.cat([p1, p2], dim=1))


class Identity(nn.Module):
    def forward(self, x):
        return x


# --------------------------------------------------------------------------
# DARTS (ImageNet network, genotype DARTS_V2)
# --------------------------------------------------------------------------
DARTS_V2 = dict(
    normal=[('sep_conv_3x3', 0), ('sep_conv_3x3', 1), ('sep_conv_3x3', 0),
            ('sep_conv_3x3', 1), ('sep_conv_3x3', 1), ('skip_connect', 0),
            ('skip_connect', 0), ('dil_conv_3x3', 2)],
    normal_concat=[2, 3, 4, 5],
    reduce=[('max_pool_3x3', 0), ('max_pool_3x3', 1), ('skip_connect', 2),
            ('max_pool_3x3', 1), ('max_pool_3x3', 0), ('skip_connect', 2),
            ('skip_connect', 2), ('max_pool_3x3', 1)],
    reduce_concat=[2, 3, 4, 5],
)


def darts_op(name, c, stride):
    if name == 'max_pool_3x3':
        return nn.MaxPool2d(3, stride=stride, padding=1)
    if name == 'avg_pool_3x3':
        return nn.AvgPool2d(3, stride=stride, padding=1, count_include_pad=False)
    if name == 'skip_connect':
        return Identity() if stride == 1 else FactorizedReduce(c, c)
    if name == 'sep_conv_3x3':
        return SepConv(c, c, 3, stride)
    if name == 'sep_conv_5x5':
        return SepConv(c, c, 5, stride)
    if name == 'dil_conv_3x3':
        return DilConv(c, c, 3, stride, 2)
    if name == 'dil_conv_5x5':
        return DilConv(c, c, 5, stride, 2)
    raise ValueError(name)


class DartsCell(nn.Module):
    def __init__(self, genotype, c_pp, c_p, c, reduction, reduction_prev):
        super().__init__()
        if reduction_prev:
            self.preprocess0 = FactorizedReduce(c_pp, c)
        else:
            self.preprocess0 = ReLUConvBN(c_pp, c, 1, 1, 0)
        self.preprocess1 = ReLUConvBN(c_p, c, 1, 1, 0)
        ops, self.concat = ((genotype['reduce'], genotype['reduce_concat'])
                            if reduction else
                            (genotype['normal'], genotype['normal_concat']))
        self.indices = [i for _, i in ops]
        self.steps = len(ops) // 2
        self.ops = nn.ModuleList(
            darts_op(n, c, 2 if reduction and i < 2 else 1) for n, i in ops)
        self.multiplier = len(self.concat)

    def forward(self, s0, s1):
        states = [self.preprocess0(s0), self.preprocess1(s1)]
        for i in range(self.steps):
            h1 = self.ops[2 * i](states[self.indices[2 * i]])
            h2 = self.ops[2 * i + 1](states[self.indices[2 * i + 1]])
            states.append(h1 + h2)
        return torch.cat([states[i] for i in self.concat], dim=1)


class DartsImageNet(nn.Module):
    def __init__(self, C=48, num_classes=1000, layers=14, genotype=DARTS_V2):
        super().__init__()
        self.stem0 = nn.Sequential(
            nn.Conv2d(3, C // 2, 3, stride=2, padding=1, bias=False),
            nn.BatchNorm2d(C // 2),
            nn.ReLU(),
            nn.Conv2d(C // 2, C, 3, stride=2, padding=1, bias=False),
            nn.BatchNorm2d(C),
        )
        self.stem1 = nn.Sequential(
            nn.ReLU(),
            nn.Conv2d(C, C, 3, stride=2, padding=1, bias=False),
            nn.BatchNorm2d(C),
        )
        c_pp, c_p, c_cur = C, C, C
        self.cells = nn.ModuleList()
        reduction_prev = True
        for i in range(layers):
            if i in (layers // 3, 2 * layers // 3):
                c_cur *= 2
                reduction = True
            else:
                reduction = False
            cell = DartsCell(genotype, c_pp, c_p, c_cur, reduction, reduction_prev)
            reduction_prev = reduction
            self.cells.append(cell)
            c_pp, c_p = c_p, cell.multiplier * c_cur
        self.global_pooling = nn.AvgPool2d(7)
        self.classifier = nn.Linear(c_p, num_classes)

    def forward(self, x):
        s0 = self.stem0(x)
        s1 = self.stem1(s0)
        for cell in self.cells:
            s0, s1 = s1, cell(s0, s1)
        out = self.global_pooling(s1)
        return self.classifier(torch.flatten(out, 1))


# --------------------------------------------------------------------------
# NASNet-A / PNASNet-5 / AmoebaNet: TF-slim style cells described by
# (operations, hiddenstate_indices, used_hiddenstates).
# Hidden state 0 = 1x1-conv'd current input ("net"), 1 = adjusted previous
# input ("prev_layer"), 2.. = outputs of the combine blocks.
# --------------------------------------------------------------------------
NASNET_NORMAL = dict(
    ops=['separable_5x5_2', 'separable_3x3_2', 'separable_5x5_2',
         'separable_3x3_2', 'avg_pool_3x3', 'none', 'avg_pool_3x3',
         'avg_pool_3x3', 'separable_3x3_2', 'none'],
    idx=[0, 1, 1, 1, 0, 1, 1, 1, 0, 0],
    used=[1, 0, 0, 0, 0, 0, 0],
    reduction=False)
NASNET_REDUCE = dict(
    ops=['separable_5x5_2', 'separable_7x7_2', 'max_pool_3x3',
         'separable_7x7_2', 'avg_pool_3x3', 'separable_5x5_2', 'none',
         'avg_pool_3x3', 'separable_3x3_2', 'max_pool_3x3'],
    idx=[0, 1, 0, 1, 0, 1, 3, 2, 2, 0],
    used=[1, 1, 1, 0, 0, 0, 0],
    reduction=True)
# PNASNet-5 (one cell type; used with stride 2 at reduction positions).
PNASNET_CELL = dict(
    ops=['separable_5x5_2', 'max_pool_3x3', 'separable_7x7_2', 'max_pool_3x3',
         'separable_5x5_2', 'separable_3x3_2', 'separable_3x3_2',
         'max_pool_3x3', 'separable_3x3_2', 'none'],
    idx=[1, 1, 0, 0, 0, 0, 4, 0, 1, 0],
    used=[1, 1, 0, 0, 0, 0, 0],
    reduction=False)
PNASNET_REDUCE = dict(PNASNET_CELL, reduction=True)
class PoolOp(nn.Module):
    """Pooling branch; when the input channel count differs from the cell's
    filter count a 1x1 conv + BN follows (TF-slim `_pooling`)."""

    def __init__(self, kind, c_in, c_out, stride):
        super().__init__()
        if kind == 'avg':
            self.pool = nn.AvgPool2d(3, stride=stride, padding=1, count_include_pad=False)
        else:
            self.pool = nn.MaxPool2d(3, stride=stride, padding=1)
        if c_in != c_out:
            self.conv = nn.Conv2d(c_in, c_out, 1, bias=False)
            self.bn = nn.BatchNorm2d(c_out)
        else:
            self.conv = None

    def forward(self, x):
        x = self.pool(x)
        if self.conv is not None:
            x = self.bn(self.conv(x))
        return x


def tf_op(name, c_in, c_out, stride):
    if name.startswith('separable_'):
        k = int(name.split('_')[1].split('x')[0])
        return SepConv(c_in, c_out, k, stride)
    if name == 'avg_pool_3x3':
        return PoolOp('avg', c_in, c_out, stride)
    if name == 'max_pool_3x3':
        return PoolOp('max', c_in, c_out, stride)
    if name == 'none':
        if stride == 1 and c_in == c_out:
            return Identity()
        return ReLUConvBN(c_in, c_out, 1, stride, 0)
    raise ValueError(name)


class TFCell(nn.Module):
    """A NASNet-style cell (TF-slim NasNetABaseCell).

    x: current input ("net"), x_prev: the input before it ("prev_layer", None
    for the first stem cell, where prev_layer = x).  Hidden states:
    h0 = ReLU-1x1conv-BN(x), h1 = x_prev adjusted to the cell's filter count
    (factorized reduction if its spatial size differs, ReLU-1x1conv-BN if only
    the channels differ), h2.. = the combine outputs (sum of two branches).
    Output = concat of the hidden states not used as an input."""

    def __init__(self, spec, c_x, c_prev, same_hw, filters, stride):
        super().__init__()
        self.spec = spec
        self.conv_1x1 = ReLUConvBN(c_x, filters)
        self.prev_is_x = c_prev is None
        self.prev_adjust = None
        if self.prev_is_x:
            c_p = c_x
        elif not same_hw:
            self.prev_adjust = PathReduce(c_prev, filters)
            c_p = filters
        elif c_prev != filters:
            self.prev_adjust = ReLUConvBN(c_prev, filters)
            c_p = filters
        else:
            c_p = c_prev
        hid_c = [filters, c_p]
        self.branches = nn.ModuleList()
        self.n_comb = len(spec['ops']) // 2
        for i in range(self.n_comb):
            for j in (0, 1):
                h = spec['idx'][2 * i + j]
                s = stride if h < 2 else 1
                self.branches.append(tf_op(spec['ops'][2 * i + j], hid_c[h], filters, s))
            hid_c.append(filters)
        self.out_channels = sum(c for c, u in zip(hid_c, spec['used']) if not u)

    def forward(self, x, x_prev=None):
        net = self.conv_1x1(x)
        if self.prev_is_x:
            prev = x
        elif self.prev_adjust is not None:
            prev = self.prev_adjust(x_prev)
        else:
            prev = x_prev
        h = [net, prev]
        for i in range(self.n_comb):
            a = self.branches[2 * i](h[self.spec['idx'][2 * i]])
            b = self.branches[2 * i + 1](h[self.spec['idx'][2 * i + 1]])
            h.append(a + b)
        return torch.cat([t for t, u in zip(h, self.spec['used']) if not u], dim=1)


class TFNASNet(nn.Module):
    """NASNet / PNASNet ImageNet model (TF-slim `_imagenet_stem` + cells):
    3x3/2 VALID conv + BN, two stride-2 stem cells at 1/4 and 1/2 of the
    filter count, then `num_cells` cells with reductions at num_cells/3 and
    2*num_cells/3 (filters doubling there); NASNet inserts an extra reduction
    cell before those positions, PNASNet runs its cell with stride 2 there.
    Head: ReLU, global average pool, dropout, linear."""

    def __init__(self, normal, reduce, num_cells, filters, stem_filters=32,
                 extra_reduction_cells=True, num_classes=1000, input_hw=224):
        super().__init__()
        self.conv0 = nn.Conv2d(3, stem_filters, 3, stride=2, padding=0, bias=False)
        self.conv0_bn = nn.BatchNorm2d(stem_filters)
        hw = (input_hw - 3) // 2 + 1
        plan = [(reduce, filters // 4), (reduce, filters // 2)]
        red_at = [num_cells // 3, 2 * num_cells // 3]
        f = filters
        for i in range(num_cells):
            if i in red_at:
                f *= 2
                if extra_reduction_cells:
                    plan.append((reduce, f))
                    plan.append((normal, f))
                else:
                    plan.append((reduce, f))
            else:
                plan.append((normal, f))
        cells = []
        cur, prev = (stem_filters, hw), None
        for spec, fs in plan:
            stride = 2 if spec['reduction'] else 1
            cell = TFCell(spec, cur[0], None if prev is None else prev[0],
                          prev is not None and prev[1] == cur[1], fs, stride)
            cells.append(cell)
            prev, cur = cur, (cell.out_channels, (cur[1] + stride - 1) // stride)
        self.cells = nn.ModuleList(cells)
        self.relu = nn.ReLU()
        self.global_pool = nn.AdaptiveAvgPool2d(1)
        self.dropout = nn.Dropout()
        self.last_linear = nn.Linear(cur[0], num_classes)

    def forward(self, x):
        x = self.conv0_bn(self.conv0(x))
        prev, cur = None, x
        for cell in self.cells:
            prev, cur = cur, cell(cur, prev)
        x = self.global_pool(self.relu(cur))
        x = self.dropout(torch.flatten(x, 1))
        return self.last_linear(x)


def nasnet_a_mobile():
    # NASNet-A Mobile "4 @ 1056": 12 normal cells (4 per stage) + 2 reduction
    # cells; penultimate filters 1056 = 24 * 44 -> 44 filters in stage 1.
    return TFNASNet(NASNET_NORMAL, NASNET_REDUCE, num_cells=12, filters=44)


def pnasnet5_mobile():
    # PNASNet-5 Mobile (TF-slim mobile_imagenet_config): num_cells=9,
    # num_conv_filters=54, stem_multiplier=1 (32 stem filters).
    return TFNASNet(PNASNET_CELL, PNASNET_REDUCE, num_cells=9, filters=54,
                    extra_reduction_cells=False)


# --------------------------------------------------------------------------
# AmoebaNet-D (DARTS-style (input index, op) genotype as in the TF reference
# implementation; state 0 = current input, 1 = previous input)
# --------------------------------------------------------------------------
AMOEBA_D_NORMAL = [(1, 'conv_1x1'), (1, 'max_pool_3x3'), (1, 'none'),
                   (0, 'conv_1x7_7x1'), (0, 'conv_1x1'), (0, 'conv_1x7_7x1'),
                   (2, 'max_pool_3x3'), (2, 'none'), (1, 'avg_pool_3x3'),
                   (5, 'conv_1x1')]
AMOEBA_D_NORMAL_CONCAT = [0, 3, 4, 6]
AMOEBA_D_REDUCE = [(0, 'max_pool_2x2'), (0, 'max_pool_3x3'), (2, 'none'),
                   (1, 'conv_3x3'), (2, 'conv_1x7_7x1'), (2, 'max_pool_3x3'),
                   (3, 'none'), (1, 'max_pool_2x2'), (2, 'avg_pool_3x3'),
                   (3, 'conv_1x1')]
AMOEBA_D_REDUCE_CONCAT = [4, 5, 6]


class Bottleneck(nn.Module):
    """AmoebaNet conv_3x3 / conv_1x7_7x1: ReLU-conv-BN layers through a c/4
    bottleneck (1x1 down, the spatial convs, 1x1 up)."""

    def __init__(self, c, stride, kind):
        super().__init__()
        m = c // 4
        layers = [ReLUConvBN(c, m, 1, 1, 0)]
        if kind == '3x3':
            layers.append(ReLUConvBN(m, m, 3, stride, 1))
        else:
            l17 = ReLUConvBN(m, m, 1, 1, 0)
            l17.conv = nn.Conv2d(m, m, (1, 7), (1, stride), (0, 3), bias=False)
            l71 = ReLUConvBN(m, m, 1, 1, 0)
            l71.conv = nn.Conv2d(m, m, (7, 1), (stride, 1), (3, 0), bias=False)
            layers += [l17, l71]
        layers.append(ReLUConvBN(m, c, 1, 1, 0))
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x)


def amoeba_op(name, c, stride):
    if name == 'none':
        return Identity() if stride == 1 else FactorizedReduce(c, c)
    if name == 'avg_pool_3x3':
        return nn.AvgPool2d(3, stride=stride, padding=1, count_include_pad=False)
    if name == 'max_pool_3x3':
        return nn.MaxPool2d(3, stride=stride, padding=1)
    if name == 'max_pool_2x2':
        return nn.MaxPool2d(2, stride=stride, padding=0)
    if name == 'conv_1x1':
        return ReLUConvBN(c, c, 1, stride, 0)
    if name == 'conv_3x3':
        return Bottleneck(c, stride, '3x3')
    if name == 'conv_1x7_7x1':
        return Bottleneck(c, stride, '1x7_7x1')
    raise ValueError(name)


class AmoebaCell(nn.Module):
    def __init__(self, c_pp, c_p, c, reduction, reduction_prev):
        super().__init__()
        self.reduce1 = ReLUConvBN(c_p, c)
        if reduction_prev:
            self.reduce2 = FactorizedReduce(c_pp, c)
        elif c_pp != c:
            self.reduce2 = ReLUConvBN(c_pp, c)
        else:
            self.reduce2 = Identity()
        genotype = AMOEBA_D_REDUCE if reduction else AMOEBA_D_NORMAL
        self.concat = AMOEBA_D_REDUCE_CONCAT if reduction else AMOEBA_D_NORMAL_CONCAT
        self.indices = [i for i, _ in genotype]
        self.ops = nn.ModuleList(
            amoeba_op(n, c, 2 if reduction and i < 2 else 1) for i, n in genotype)
        self.out_channels = c * len(self.concat)

    def forward(self, s1, s2):
        states = [self.reduce1(s1), self.reduce2(s2)]
        for i in range(0, len(self.ops), 2):
            a = self.ops[i](states[self.indices[i]])
            b = self.ops[i + 1](states[self.indices[i + 1]])
            states.append(a + b)
        return torch.cat([states[i] for i in self.concat], dim=1)


class AmoebaNetD(nn.Module):
    """AmoebaNet-D(N=num_layers, F=num_filters) for ImageNet: 3x3/2 conv +
    BN stem, two reduction stem cells, then N/3 normal cells, reduction,
    N/3 normal, reduction, N/3 normal; 7x7 average pool, linear."""

    def __init__(self, num_layers=18, num_filters=256, num_classes=1000):
        super().__init__()
        assert num_layers % 3 == 0
        c = num_filters // 4
        self.stem_conv = nn.Conv2d(3, c, 3, stride=2, padding=1, bias=False)
        self.stem_bn = nn.BatchNorm2d(c)
        c_pp = c_p = c
        reduction_prev = False
        plan = ['r', 'r'] + (['n'] * (num_layers // 3) + ['r']) * 2 + ['n'] * (num_layers // 3)
        cells = []
        for k in plan:
            if k == 'r':
                c *= 2
            cell = AmoebaCell(c_pp, c_p, c, k == 'r', reduction_prev)
            cells.append(cell)
            c_pp, c_p = c_p, cell.out_channels
            reduction_prev = k == 'r'
        self.cells = nn.ModuleList(cells)
        self.pool = nn.AvgPool2d(7)
        self.fc = nn.Linear(c_p, num_classes)

    def forward(self, x):
        x = self.stem_bn(self.stem_conv(x))
        s1 = s2 = x
        for cell in self.cells:
            s1, s2 = cell(s1, s2), s1
        return self.fc(torch.flatten(self.pool(s1), 1))


def amoebanet_d():
    return AmoebaNetD(18, 256)
