/* shuttle_paper: SmartShuttle's Table II (VGG16, batch 3, 108 KB, thresholds 8),
 * transcribed: layer configuration (M, N, R, C, K, S) as printed (layer 1 with
 * N = 1, though VGG16's first layer reads 3 channels), compression rates
 * <cri, cro, crw>, the tiling <Tm, Tn, Tr, Tc> per scheme and the published
 * volumes (their unit is not stated; they do not follow from Eq. 2 at these
 * tilings, see the README). */
#include "shuttle.h"

#include <stdio.h>

#define T(a, b, c, d) {a, b, c, d}
const ShuttlePaperRow Shuttle_paperVgg16[SHUTTLE_PAPER_VGG16_LAYERS] = {
    {64, 1, 224, 224, 3, 1, 0.99, 0.90, 0.58, {T(8, 1, 82, 82), T(64, 1, 28, 28), T(64, 1, 28, 28)}, {16.8, 17.2, 17.1}, SHUTTLE_ORO, 17.2},
    {64, 64, 224, 224, 3, 1, 0.57, 0.86, 0.22, {T(8, 64, 35, 35), T(64, 9, 30, 30), T(64, 64, 22, 22)}, {59.8, 40.6, 71.0}, SHUTTLE_ORO, 40.6},
    {128, 64, 112, 112, 3, 1, 0.78, 0.89, 0.34, {T(10, 64, 30, 30), T(128, 14, 20, 20), T(128, 64, 13, 13)}, {29.7, 20.1, 33.5}, SHUTTLE_ORO, 20.1},
    {128, 128, 112, 112, 3, 1, 0.65, 0.90, 0.36, {T(12, 128, 23, 23), T(128, 13, 20, 20), T(128, 105, 8, 8)}, {36.3, 29.9, 40.0}, SHUTTLE_ORO, 29.9},
    {256, 128, 56, 56, 3, 1, 0.64, 0.88, 0.53, {T(10, 128, 23, 23), T(256, 8, 14, 14), T(256, 32, 8, 8)}, {17.4, 16.0, 17.1}, SHUTTLE_ORO, 16.0},
    {256, 256, 56, 56, 3, 1, 0.48, 0.89, 0.24, {T(12, 256, 19, 19), T(256, 16, 14, 14), T(256, 69, 8, 8)}, {22.1, 19.1, 19.3}, SHUTTLE_ORO, 19.1},
    {256, 256, 56, 56, 3, 1, 0.47, 0.84, 0.42, {T(9, 256, 19, 19), T(256, 12, 14, 14), T(256, 41, 8, 8)}, {26.9, 21.8, 22.2}, SHUTTLE_ORO, 21.8},
    {512, 256, 28, 28, 3, 1, 0.42, 0.85, 0.32, {T(11, 256, 20, 20), T(512, 13, 9, 9), T(512, 18, 8, 8)}, {15.0, 12.4, 10.3}, SHUTTLE_WRO, 10.3},
    {512, 512, 28, 28, 3, 1, 0.33, 0.85, 0.27, {T(8, 512, 16, 16), T(512, 9, 10, 10), T(512, 21, 8, 8)}, {21.4, 19.4, 16.5}, SHUTTLE_WRO, 16.5},
    {512, 512, 28, 28, 3, 1, 0.23, 0.85, 0.34, {T(9, 512, 18, 18), T(512, 12, 9, 9), T(512, 17, 8, 8)}, {24.9, 22.3, 14.9}, SHUTTLE_WRO, 14.9},
    {512, 512, 14, 14, 3, 1, 0.29, 0.87, 0.35, {T(14, 512, 14, 14), T(512, 11, 9, 9), T(512, 16, 8, 8)}, {20.7, 19.9, 5.6}, SHUTTLE_WRO, 5.6},
    {512, 512, 14, 14, 3, 1, 0.21, 0.86, 0.29, {T(22, 512, 14, 14), T(512, 8, 10, 10), T(512, 19, 8, 8)}, {17.3, 16.5, 4.3}, SHUTTLE_WRO, 4.3},
    {512, 512, 14, 14, 3, 1, 0.20, 0.86, 0.36, {T(19, 512, 14, 14), T(512, 11, 9, 9), T(512, 16, 8, 8)}, {21.1, 20.3, 4.9}, SHUTTLE_WRO, 4.9},
};
#undef T

void Shuttle_paperLayer(const ShuttlePaperRow *row, Layer *l) {
  *l = (Layer){0};
  int idx = (int)(row - Shuttle_paperVgg16);
  snprintf(l->name, sizeof l->name, "vgg16-C%d", idx + 1);
  l->K = row->M;
  l->C = row->N;
  l->P = row->R;
  l->Q = row->C;
  l->R = l->S = row->K;
  l->N = 3;
  l->stride_h = l->stride_w = (int)row->S;
  l->pad_h = l->pad_w = (int)(row->K / 2);
  l->groups = 1;
  l->op = -1;
}

void Shuttle_paperOptions(const ShuttlePaperRow *row, ShuttleOptions *o) {
  ShuttleOptions_init(o);
  o->gamma_i = row->cri;
  o->gamma_o = row->cro;
  o->gamma_w = row->crw;
}
