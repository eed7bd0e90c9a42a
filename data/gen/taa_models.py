"""Plain nn.Module implementations of the TAA paper's models that torchvision
0.14 does not ship (Kvochko et al., IEEE Access 2024, Section IV: Inception v4,
MobileNet v1, ResNet V2 101). Only the graph structure matters for spadmap:
weights are random and never used.

* MobileNet v1 (Howard et al. 2017), width 1.0, 224x224: a 3x3/2 stem and 13
  depthwise-separable blocks (3x3 depthwise + 1x1 pointwise), average pool, fc.
* Inception v4 (Szegedy et al. AAAI 2017, Fig. 3-9), 299x299: stem, 4 x
  Inception-A, Reduction-A (k,l,m,n = 192,224,256,384), 7 x Inception-B,
  Reduction-B, 3 x Inception-C, average pool, fc.
* ResNet V2 101 (He et al. ECCV 2016, "identity mappings"): pre-activation
  bottlenecks (BN-ReLU before each conv), blocks [3, 4, 23, 3], stride in the
  first block of stages 2-4 as in torchvision's v1.5 layout, 224x224.

Every compute step is a leaf nn.Module (Conv2d, BatchNorm2d, ReLU, pools,
Linear) or a plain torch/operator call, so torch.fx traces through them.
"""
import torch
import torch.nn as nn


class ConvBN(nn.Module):
    """conv + BN + ReLU (folded into one op by the generator)."""

    def __init__(self, cin, cout, k, s=1, p=0, groups=1):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, s, p, groups=groups, bias=False)
        self.bn = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=False)

    def forward(self, x):
        return self.relu(self.bn(self.conv(x)))


# --------------------------------------------------------------------------
# MobileNet v1
# --------------------------------------------------------------------------
class MobileNetV1(nn.Module):
    CFG = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2),
           (512, 1), (512, 1), (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1)]

    def __init__(self, num_classes=1000):
        super().__init__()
        layers = [ConvBN(3, 32, 3, 2, 1)]
        cin = 32
        for cout, s in self.CFG:
            layers.append(ConvBN(cin, cin, 3, s, 1, groups=cin))
            layers.append(ConvBN(cin, cout, 1))
            cin = cout
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(1024, num_classes)

    def forward(self, x):
        x = self.pool(self.features(x))
        return self.fc(torch.flatten(x, 1))


# --------------------------------------------------------------------------
# Inception v4
# --------------------------------------------------------------------------
class Stem(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = ConvBN(3, 32, 3, 2)
        self.c2 = ConvBN(32, 32, 3)
        self.c3 = ConvBN(32, 64, 3, 1, 1)
        self.pool1 = nn.MaxPool2d(3, 2)
        self.conv1 = ConvBN(64, 96, 3, 2)
        self.b1 = nn.Sequential(ConvBN(160, 64, 1), ConvBN(64, 96, 3))
        self.b2 = nn.Sequential(ConvBN(160, 64, 1), ConvBN(64, 64, (1, 7), 1, (0, 3)),
                                ConvBN(64, 64, (7, 1), 1, (3, 0)), ConvBN(64, 96, 3))
        self.conv2 = ConvBN(192, 192, 3, 2)
        self.pool2 = nn.MaxPool2d(3, 2)

    def forward(self, x):
        x = self.c3(self.c2(self.c1(x)))
        x = torch.cat([self.pool1(x), self.conv1(x)], 1)
        x = torch.cat([self.b1(x), self.b2(x)], 1)
        return torch.cat([self.conv2(x), self.pool2(x)], 1)


class InceptionA(nn.Module):
    def __init__(self):
        super().__init__()
        self.b0 = ConvBN(384, 96, 1)
        self.b1 = nn.Sequential(ConvBN(384, 64, 1), ConvBN(64, 96, 3, 1, 1))
        self.b2 = nn.Sequential(ConvBN(384, 64, 1), ConvBN(64, 96, 3, 1, 1), ConvBN(96, 96, 3, 1, 1))
        self.pool = nn.AvgPool2d(3, 1, 1, count_include_pad=False)
        self.b3 = ConvBN(384, 96, 1)

    def forward(self, x):
        return torch.cat([self.b0(x), self.b1(x), self.b2(x), self.b3(self.pool(x))], 1)


class ReductionA(nn.Module):
    def __init__(self, cin=384, k=192, l=224, m=256, n=384):
        super().__init__()
        self.b0 = ConvBN(cin, n, 3, 2)
        self.b1 = nn.Sequential(ConvBN(cin, k, 1), ConvBN(k, l, 3, 1, 1), ConvBN(l, m, 3, 2))
        self.pool = nn.MaxPool2d(3, 2)

    def forward(self, x):
        return torch.cat([self.b0(x), self.b1(x), self.pool(x)], 1)


class InceptionB(nn.Module):
    def __init__(self):
        super().__init__()
        self.b0 = ConvBN(1024, 384, 1)
        self.b1 = nn.Sequential(ConvBN(1024, 192, 1), ConvBN(192, 224, (1, 7), 1, (0, 3)),
                                ConvBN(224, 256, (7, 1), 1, (3, 0)))
        self.b2 = nn.Sequential(ConvBN(1024, 192, 1), ConvBN(192, 192, (7, 1), 1, (3, 0)),
                                ConvBN(192, 224, (1, 7), 1, (0, 3)), ConvBN(224, 224, (7, 1), 1, (3, 0)),
                                ConvBN(224, 256, (1, 7), 1, (0, 3)))
        self.pool = nn.AvgPool2d(3, 1, 1, count_include_pad=False)
        self.b3 = ConvBN(1024, 128, 1)

    def forward(self, x):
        return torch.cat([self.b0(x), self.b1(x), self.b2(x), self.b3(self.pool(x))], 1)


class ReductionB(nn.Module):
    def __init__(self):
        super().__init__()
        self.b0 = nn.Sequential(ConvBN(1024, 192, 1), ConvBN(192, 192, 3, 2))
        self.b1 = nn.Sequential(ConvBN(1024, 256, 1), ConvBN(256, 256, (1, 7), 1, (0, 3)),
                                ConvBN(256, 320, (7, 1), 1, (3, 0)), ConvBN(320, 320, 3, 2))
        self.pool = nn.MaxPool2d(3, 2)

    def forward(self, x):
        return torch.cat([self.b0(x), self.b1(x), self.pool(x)], 1)


class InceptionC(nn.Module):
    def __init__(self):
        super().__init__()
        self.b0 = ConvBN(1536, 256, 1)
        self.b1 = ConvBN(1536, 384, 1)
        self.b1a = ConvBN(384, 256, (1, 3), 1, (0, 1))
        self.b1b = ConvBN(384, 256, (3, 1), 1, (1, 0))
        self.b2 = nn.Sequential(ConvBN(1536, 384, 1), ConvBN(384, 448, (3, 1), 1, (1, 0)),
                                ConvBN(448, 512, (1, 3), 1, (0, 1)))
        self.b2a = ConvBN(512, 256, (1, 3), 1, (0, 1))
        self.b2b = ConvBN(512, 256, (3, 1), 1, (1, 0))
        self.pool = nn.AvgPool2d(3, 1, 1, count_include_pad=False)
        self.b3 = ConvBN(1536, 256, 1)

    def forward(self, x):
        y1 = self.b1(x)
        y2 = self.b2(x)
        return torch.cat([self.b0(x), self.b1a(y1), self.b1b(y1), self.b2a(y2), self.b2b(y2),
                          self.b3(self.pool(x))], 1)


class InceptionV4(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        blocks = [Stem()] + [InceptionA() for _ in range(4)] + [ReductionA()]
        blocks += [InceptionB() for _ in range(7)] + [ReductionB()] + [InceptionC() for _ in range(3)]
        self.features = nn.Sequential(*blocks)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(1536, num_classes)

    def forward(self, x):
        x = self.pool(self.features(x))
        return self.fc(torch.flatten(x, 1))


# --------------------------------------------------------------------------
# ResNet V2 101 (pre-activation)
# --------------------------------------------------------------------------
class PreActBottleneck(nn.Module):
    def __init__(self, cin, width, stride):
        super().__init__()
        cout = width * 4
        self.bn1 = nn.BatchNorm2d(cin)
        self.relu1 = nn.ReLU()
        self.conv1 = nn.Conv2d(cin, width, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.relu2 = nn.ReLU()
        self.conv2 = nn.Conv2d(width, width, 3, stride, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(width)
        self.relu3 = nn.ReLU()
        self.conv3 = nn.Conv2d(width, cout, 1, bias=False)
        self.shortcut = None
        if stride != 1 or cin != cout:
            self.shortcut = nn.Conv2d(cin, cout, 1, stride, bias=False)

    def forward(self, x):
        pre = self.relu1(self.bn1(x))
        sc = self.shortcut(pre) if self.shortcut is not None else x
        y = self.conv1(pre)
        y = self.conv2(self.relu2(self.bn2(y)))
        y = self.conv3(self.relu3(self.bn3(y)))
        return y + sc


class ResNetV2(nn.Module):
    def __init__(self, layers=(3, 4, 23, 3), num_classes=1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.pool1 = nn.MaxPool2d(3, 2, 1)
        blocks = []
        cin = 64
        for i, n in enumerate(layers):
            width = 64 * 2 ** i
            for j in range(n):
                blocks.append(PreActBottleneck(cin, width, 2 if (j == 0 and i > 0) else 1))
                cin = width * 4
        self.blocks = nn.Sequential(*blocks)
        self.bn = nn.BatchNorm2d(cin)
        self.relu = nn.ReLU()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x):
        x = self.blocks(self.pool1(self.conv1(x)))
        x = self.pool(self.relu(self.bn(x)))
        return self.fc(torch.flatten(x, 1))


def resnet_v2_101():
    return ResNetV2((3, 4, 23, 3))
