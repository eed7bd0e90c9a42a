/* spadmap bench shuttle: SmartShuttle's evaluation under its own analytical model
 * (Eq. 2): the paper's Table II next to the rule's and the oracle's tilings, the
 * baselines of its Table III with and without compression (Zhang, Eyeriss: one
 * static ORO tiling), MACs per DRAM access of VGG16 (batch 3) and AlexNet (batch
 * 4) under IRO-DP, ORO-DP, WRO-DP, the rule (SmartShuttle), the adaptive oracle
 * and Zhang's static baseline; --buffer-sweep: its Fig. 10 (total VGG16 volume
 * against the global buffer size). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "datadir.h"
#include "words.h"
#include "cli.h"
#include "clock.h"
#include "layer/shuttle.h"

static const CliOption BenchShuttle_options[] = {
  {"--arch", "FILE", "platform (default: the bundled data/arch/smartshuttle.json)"},
  {"--dir", "DIR", "networks directory (default: the bundled data/networks)"},
  {"--capacity", "RULE", "buffer occupancy: paper (no halo, the default), halo, raw"},
  {"--buffer-sweep", NULL, "Fig. 10: Table II's VGG16 volume per scheme for buffers of 16 KB to 512 KB (replaces the tables)"},
  {NULL, NULL, NULL},
};

static const char *BenchShuttle_tiling(const ShuttleTiling *t, char *buf, int n) {
  snprintf(buf, (size_t)n, "(%lld, %lld, %lld, %lld)", (long long)t->Tm, (long long)t->Tn, (long long)t->Tr,
           (long long)t->Tc);
  return buf;
}

/* MB (1e6 bytes, the paper's unit: its Table II is compared here) of a volume, each operand at its precision. */
static double BenchShuttle_mbv(const ShuttleVolume *v) { return v->bytes / 1e6; }
static double BenchShuttle_mb(double elems, int bytes) { return elems * bytes / 1e6; }

/* "2-byte elements", or each operand's when they differ. */
static const char *BenchShuttle_precision(const ShuttleOptions *o, char *buf, size_t n) {
  if (Shuttle_onePrecision(o)) snprintf(buf, n, "%d-byte elements", o->bytes[OPND_I]);
  else snprintf(buf, n, "elements of %d (ifm), %d (ofm), %d (wght) bytes", o->bytes[OPND_I], o->bytes[OPND_O],
                o->bytes[OPND_W]);
  return buf;
}

static void BenchShuttle_table2(const ShuttleOptions *base) {
  printf("## VGG16 (Table II's layers, batch 3, its compression rates): the paper's tilings, the rule's, the "
         "oracle's\n\n");
  printf("Volumes: MB (elements x compression rate x each operand's bytes) under Eq. 2; \"paper V\" is Table II as printed.\n\n");
  printf("| layer | scheme | paper tiling | paper V | Eq. 2 at paper tiling | fits | rule tiling | Eq. 2 | oracle tiling "
         "| Eq. 2 |\n|---|---|---|---|---|---|---|---|---|---|\n");
  double sum_paper[SHUTTLE_SCHEMES + 1] = {0}, sum_eq2[SHUTTLE_SCHEMES + 1] = {0}, sum_rule[SHUTTLE_SCHEMES + 1] = {0},
         sum_or[SHUTTLE_SCHEMES + 1] = {0};
  int rule_pick_ok = 0;
  for (int i = 0; i < SHUTTLE_PAPER_VGG16_LAYERS; i++) {
    const ShuttlePaperRow *row = &Shuttle_paperVgg16[i];
    Layer l;
    ShuttleOptions o;
    Shuttle_paperLayer(row, &l);
    Shuttle_paperOptions(row, &o);
    o.glb_bytes = base->glb_bytes;
    memcpy(o.bytes, base->bytes, sizeof o.bytes);
    o.capacity = base->capacity;
    ShuttleLayer r;
    SpError err;
    if (Shuttle_analyze(&l, &o, &r, &err) != SP_OK) {
      printf("| %d | %s |\n", i + 1, err.text);
      continue;
    }
    char a[64], b[64], c[64];
    for (int s = 0; s < SHUTTLE_SCHEMES; s++) {
      ShuttleVolume pv = Shuttle_volume(&l, &o, (ShuttleScheme)s, &row->tiling[s]);
      printf("| %d | %s | %s | %.1f | %.1f | %s | %s | %.1f | %s | %.1f |\n", i + 1, Shuttle_schemeName(s),
             BenchShuttle_tiling(&row->tiling[s], a, sizeof a), row->volume[s], BenchShuttle_mbv(&pv),
             Shuttle_fits(&l, &o, &row->tiling[s]) ? "yes" : "no", BenchShuttle_tiling(&r.rule_tiling[s], b, sizeof b),
             BenchShuttle_mbv(&r.rule_vol[s]), BenchShuttle_tiling(&r.oracle_tiling[s], c, sizeof c),
             BenchShuttle_mbv(&r.oracle_vol[s]));
      sum_paper[s] += row->volume[s];
      sum_eq2[s] += BenchShuttle_mbv(&pv);
      sum_rule[s] += BenchShuttle_mbv(&r.rule_vol[s]);
      sum_or[s] += BenchShuttle_mbv(&r.oracle_vol[s]);
    }
    ShuttleScheme rs = r.rule_scheme;
    ShuttleVolume pv = Shuttle_volume(&l, &o, row->scheme, &row->tiling[row->scheme]);
    printf("| %d | **pick**: paper %s, rule %s, oracle %s | | %.1f | %.1f | | | %.1f | | %.1f |\n", i + 1,
           Shuttle_schemeName(row->scheme), Shuttle_schemeName(rs), Shuttle_schemeName(r.oracle_scheme),
           row->volume_s, BenchShuttle_mbv(&pv), BenchShuttle_mbv(&r.rule_vol[rs]),
           BenchShuttle_mbv(&r.oracle_vol[r.oracle_scheme]));
    if (rs == row->scheme) rule_pick_ok++;
    sum_paper[SHUTTLE_SCHEMES] += row->volume_s;
    sum_eq2[SHUTTLE_SCHEMES] += BenchShuttle_mbv(&pv);
    sum_rule[SHUTTLE_SCHEMES] += BenchShuttle_mbv(&r.rule_vol[rs]);
    sum_or[SHUTTLE_SCHEMES] += BenchShuttle_mbv(&r.oracle_vol[r.oracle_scheme]);
  }
  printf("\n| total | paper V | Eq. 2 at paper tilings | rule | oracle |\n|---|---|---|---|---|\n");
  for (int s = 0; s <= SHUTTLE_SCHEMES; s++)
    printf("| %s | %.1f | %.1f | %.1f | %.1f |\n", s < SHUTTLE_SCHEMES ? Shuttle_schemeName(s) : "SmartShuttle (pick)",
           sum_paper[s], sum_eq2[s], sum_rule[s], sum_or[s]);
  printf("\nTable I's pick = the paper's RS column on %d of 13 layers.\n\n", rule_pick_ok);
}

/* Table II's thirteen layers at one buffer size, with their compression rates
 * or without (every rate 1): totals per policy, MB. */
typedef struct {
  double v[SHUTTLE_POLICIES];       /* IRO-DP, ORO-DP, WRO-DP, rule, oracle: MB */
  double e[SHUTTLE_POLICIES], fixed_e; /* the same in elements moved (for MACs per access) */
  double fixed;                     /* the static ORO baseline: Eyeriss with compression, Zhang without */
  ShuttleTiling fixed_tiling;
  double macs;
  bool ok;
  char error[SP_ERROR_TEXT];
} BenchShuttleTotals;

static void BenchShuttle_vgg16(const ShuttleOptions *base, int64_t glb, bool compression, BenchShuttleTotals *t) {
  memset(t, 0, sizeof *t);
  Layer ls[SHUTTLE_PAPER_VGG16_LAYERS];
  ShuttleOptions os[SHUTTLE_PAPER_VGG16_LAYERS];
  SpError err;
  for (int i = 0; i < SHUTTLE_PAPER_VGG16_LAYERS; i++) {
    Shuttle_paperLayer(&Shuttle_paperVgg16[i], &ls[i]);
    Shuttle_paperOptions(&Shuttle_paperVgg16[i], &os[i]);
    os[i].glb_bytes = glb;
    memcpy(os[i].bytes, base->bytes, sizeof os[i].bytes);
    os[i].capacity = base->capacity;
    if (!compression) os[i].gamma_i = os[i].gamma_o = os[i].gamma_w = 1;
    ShuttleLayer r;
    if (Shuttle_analyze(&ls[i], &os[i], &r, &err) != SP_OK) {
      snprintf(t->error, sizeof t->error, "%s", err.text);
      return;
    }
    const ShuttleVolume *pol[SHUTTLE_POLICIES] = {&r.oracle_vol[0], &r.oracle_vol[1], &r.oracle_vol[2],
                                                  &r.rule_vol[r.rule_scheme], &r.oracle_vol[r.oracle_scheme]};
    for (int p = 0; p < SHUTTLE_POLICIES; p++) {
      t->v[p] += BenchShuttle_mbv(pol[p]);
      t->e[p] += pol[p]->total;
    }
    t->macs += (double)r.macs;
  }
  ShuttleVolume fv;
  if (Shuttle_static(ls, os, SHUTTLE_PAPER_VGG16_LAYERS, compression ? SHUTTLE_STATIC_EYERISS : SHUTTLE_STATIC_ZHANG,
                     &t->fixed_tiling, &fv, NULL, &err) != SP_OK) {
    snprintf(t->error, sizeof t->error, "%s", err.text);
    return;
  }
  t->fixed = BenchShuttle_mbv(&fv);
  t->fixed_e = fv.total;
  t->ok = true;
}

/* The fixed schemes (-DP) from least to most volume, e.g. "IRO < ORO < WRO". */
static const char *BenchShuttle_rank(const BenchShuttleTotals *t, char *buf, size_t n) {
  int o[SHUTTLE_SCHEMES] = {0, 1, 2};
  for (int i = 0; i < SHUTTLE_SCHEMES; i++)
    for (int j = i + 1; j < SHUTTLE_SCHEMES; j++)
      if (t->v[o[j]] < t->v[o[i]]) {
        int x = o[i];
        o[i] = o[j];
        o[j] = x;
      }
  snprintf(buf, n, "%s < %s < %s", Shuttle_schemeName(o[0]), Shuttle_schemeName(o[1]), Shuttle_schemeName(o[2]));
  return buf;
}

/* Table III's baselines on Table II's layers, with the compression rates and without. */
static int BenchShuttle_baselines(const ShuttleOptions *o) {
  BenchShuttleTotals t[2];
  for (int c = 0; c < 2; c++) BenchShuttle_vgg16(o, o->glb_bytes, c == 1, &t[c]);
  if (!t[0].ok || !t[1].ok) {
    fprintf(stderr, "spadmap bench shuttle: baselines: %s\n", t[0].ok ? t[1].error : t[0].error);
    return 1;
  }
  printf("## The baselines of Table III on Table II's VGG16 layers (batch 3, %lld-byte buffer)\n\n",
         (long long)o->glb_bytes);
  printf("MB under Eq. 2 (elements x compression rate x each operand's bytes); MACs / DRAM access = MACs / elements moved. -DP: one\n"
         "scheme for every layer, the oracle's tiling per layer. Zhang / Eyeriss: ORO with one static tiling for all\n"
         "thirteen layers (the best such tiling: the papers' own factors are not printed); Zhang without compression,\n"
         "Eyeriss with it. SmartShuttle-CF is the rule without compression.\n\n");
  printf("| policy | compression free: MB | MACs/access | with Table II's rates: MB | MACs/access |\n|---|---:|---:|---:|---:|\n");
  static const char *const names[SHUTTLE_POLICIES] = {"IRO-DP", "ORO-DP", "WRO-DP", "SmartShuttle (rule; -CF without rates)",
                                                       "oracle"};
  for (int p = 0; p < SHUTTLE_POLICIES; p++)
    printf("| %s | %.1f | %.1f | %.1f | %.1f |\n", names[p], t[0].v[p],
           t[0].macs / t[0].e[p], t[1].v[p], t[1].macs / t[1].e[p]);
  char a[64], b[64];
  printf("| static ORO: Zhang (free) / Eyeriss (rates) | %.1f | %.1f | %.1f | %.1f |\n", t[0].fixed,
         t[0].macs / t[0].fixed_e, t[1].fixed, t[1].macs / t[1].fixed_e);
  printf("\nStatic tilings: Zhang %s, Eyeriss %s (each factor capped by the layer's dimension). Fixed schemes, least\n"
         "volume first: compression free %s; with the rates %s (the paper: \"IRO always performs the poorest\").\n"
         "SmartShuttle-CF vs Zhang: %+.1f %% volume (paper: -64.4 %%); SmartShuttle vs Eyeriss: %+.1f %% (paper: -31.2 %%);\n"
         "the oracle (adaptive scheme and tiling) vs Zhang: %+.1f %%, vs Eyeriss: %+.1f %%.\n\n",
         BenchShuttle_tiling(&t[0].fixed_tiling, a, sizeof a), BenchShuttle_tiling(&t[1].fixed_tiling, b, sizeof b),
         BenchShuttle_rank(&t[0], (char[64]){0}, 64), BenchShuttle_rank(&t[1], (char[64]){0}, 64),
         100.0 * (t[0].v[SHUTTLE_POL_RULE] / t[0].fixed - 1), 100.0 * (t[1].v[SHUTTLE_POL_RULE] / t[1].fixed - 1),
         100.0 * (t[0].v[SHUTTLE_POL_ORACLE] / t[0].fixed - 1), 100.0 * (t[1].v[SHUTTLE_POL_ORACLE] / t[1].fixed - 1));
  return 0;
}

/* Fig. 10: the paper's text gives no axis values (the figure is lost in its text);
 * it speaks of buffers below and above 192 KB around its 108 KB. */
static const int BenchShuttle_sweepKb[] = {16, 32, 64, 108, 128, 192, 256, 384, 512};
enum { BENCH_SHUTTLE_SWEEP = sizeof BenchShuttle_sweepKb / sizeof BenchShuttle_sweepKb[0] };

static int BenchShuttle_sweep(const ShuttleOptions *o) {
  int bad = 0;
  for (int c = 1; c >= 0; c--) {
    printf("## Fig. 10: total DRAM volume of Table II's VGG16 layers (batch 3) against the global buffer, %s\n\n",
           c ? "with Table II's compression rates" : "compression free");
    printf("MB under Eq. 2. -DP: the oracle's tiling per layer for one scheme; static ORO: %s.\n\n",
           c ? "Eyeriss (one tiling for all layers, compressed)" : "Zhang (one tiling for all layers)");
    printf("| buffer KB | IRO-DP | ORO-DP | WRO-DP | SmartShuttle (rule) | oracle | static ORO | static tiling | "
           "fixed schemes, least first | rule vs oracle |\n|---:|---:|---:|---:|---:|---:|---:|---|---|---:|\n");
    for (int k = 0; k < BENCH_SHUTTLE_SWEEP; k++) {
      BenchShuttleTotals t;
      BenchShuttle_vgg16(o, (int64_t)BenchShuttle_sweepKb[k] * 1024, c == 1, &t);
      if (!t.ok) {
        printf("| %d | %s |\n", BenchShuttle_sweepKb[k], t.error);
        bad++;
        continue;
      }
      char a[64], b[64];
      printf("| %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %s | %s | %+.1f %% |\n", BenchShuttle_sweepKb[k],
             t.v[SHUTTLE_IRO], t.v[SHUTTLE_ORO], t.v[SHUTTLE_WRO], t.v[SHUTTLE_POL_RULE], t.v[SHUTTLE_POL_ORACLE], t.fixed,
             BenchShuttle_tiling(&t.fixed_tiling, a, sizeof a), BenchShuttle_rank(&t, b, sizeof b),
             100.0 * (t.v[SHUTTLE_POL_RULE] / t.v[SHUTTLE_POL_ORACLE] - 1));
    }
    printf("\n");
  }
  return bad;
}

static int BenchShuttle_net(const char *dir, const char *name, int64_t batch, const ShuttleOptions *o,
                            double paper_ss, double paper_eyeriss) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s.json", dir, name);
  Net *net = Cli_loadNet(path);
  if (!net) return 1;
  ShuttleNet sn;
  SpError err;
  double t0 = Clock_now();
  Status st = Shuttle_network(net, batch, o, &sn, &err);
  double secs = Clock_now() - t0;
  if (st != SP_OK) {
    fprintf(stderr, "spadmap bench shuttle: %s: %s\n", name, err.text);
    Net_free(net);
    return 1;
  }
  printf("## %s, batch %lld, compression free (gamma = 1), %lld-byte buffer\n\n", name, (long long)batch,
         (long long)o->glb_bytes);
  printf("| layer | (M, N, R, C, K, S) | rule | rule tiling | oracle | oracle tiling | ifm MB | ofm MB | wght MB | "
         "total MB |\n|---|---|---|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < sn.nlayers; i++) {
    const Layer *l = &sn.layers[i];
    const ShuttleLayer *r = &sn.results[i];
    const ShuttleVolume *v = &r->oracle_vol[r->oracle_scheme];
    char a[64], b[64];
    printf("| %s | (%lld, %lld, %lld, %lld, %lld, %d) | %s | %s | %s | %s | %.2f | %.2f | %.2f | %.2f |\n", l->name,
           (long long)l->K, (long long)l->C, (long long)l->P, (long long)l->Q, (long long)l->R, l->stride_h,
           Shuttle_schemeName(r->rule_scheme), BenchShuttle_tiling(&r->rule_tiling[r->rule_scheme], a, sizeof a),
           Shuttle_schemeName(r->oracle_scheme), BenchShuttle_tiling(&r->oracle_tiling[r->oracle_scheme], b, sizeof b),
           BenchShuttle_mb(v->in, o->bytes[OPND_I]), BenchShuttle_mb(v->out, o->bytes[OPND_O]), BenchShuttle_mb(v->wt, o->bytes[OPND_W]),
           BenchShuttle_mbv(v));
  }
  printf("\n| policy | ifm MB | ofm MB | wght MB | total MB | MACs / DRAM access |\n|---|---|---|---|---|---|\n");
  int best_fixed = 0;
  for (int p = 0; p < SHUTTLE_POLICIES; p++) {
    const ShuttleVolume *v = &sn.total[p];
    printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1f |\n", Shuttle_policyName(p), BenchShuttle_mb(v->in, o->bytes[OPND_I]),
           BenchShuttle_mb(v->out, o->bytes[OPND_O]), BenchShuttle_mb(v->wt, o->bytes[OPND_W]), BenchShuttle_mbv(v),
           ShuttleNet_macsPerAccess(&sn, p));
    if (p < SHUTTLE_SCHEMES && sn.total[p].bytes < sn.total[best_fixed].bytes) best_fixed = p;
  }
  char zt[64];
  if (sn.have_static)
    printf("| Zhang (static ORO %s) | %.1f | %.1f | %.1f | %.1f | %.1f |\n", BenchShuttle_tiling(&sn.zhang_tiling, zt, sizeof zt),
           BenchShuttle_mb(sn.zhang.in, o->bytes[OPND_I]), BenchShuttle_mb(sn.zhang.out, o->bytes[OPND_O]), BenchShuttle_mb(sn.zhang.wt, o->bytes[OPND_W]),
           BenchShuttle_mbv(&sn.zhang), sn.zhang.total > 0 ? (double)sn.macs / sn.zhang.total : 0);
  else
    printf("| Zhang (static ORO) | no static tiling fits every layer | | | | |\n");
  char macs[32];
  double ad = ShuttleNet_macsPerAccess(&sn, SHUTTLE_POL_ORACLE), fx = ShuttleNet_macsPerAccess(&sn, best_fixed);
  printf("\n%s MACs in %d conv layers; adaptive (oracle) %.1f vs best fixed scheme %s %.1f MACs/access: %+.1f %%; "
         "the rule reaches %.1f. Paper (with compression, its simulator): SmartShuttle %.1f, Eyeriss %.1f. "
         "Oracle search %.2f s.\n\n",
         Words_count((double)sn.macs, macs, sizeof macs), sn.nlayers, ad, Shuttle_policyName(best_fixed), fx, 100.0 * (ad / fx - 1),
         ShuttleNet_macsPerAccess(&sn, SHUTTLE_POL_RULE), paper_ss, paper_eyeriss, secs);
  ShuttleNet_free(&sn);
  Net_free(net);
  return 0;
}

static int BenchShuttle_run(int argc, char **argv) {
  const CliCommand *c = &Cli_benchShuttle;
  CliArgs a;
  int rc = Cli_parse(c, argc, argv, 0, 0, &a);
  if (rc >= 0) return rc;
  const char *arch_path = Cli_value(c, &a, "--arch") ? Cli_value(c, &a, "--arch") : Data_file("arch/smartshuttle.json");
  const char *dir = Cli_value(c, &a, "--dir") ? Cli_value(c, &a, "--dir") : Data_file("networks");
  ShuttleOptions o;
  ShuttleOptions_init(&o);
  const char *cap = Cli_value(c, &a, "--capacity");
  if (cap) {
    if (!strcmp(cap, "paper")) o.capacity = SHUTTLE_CAP_PAPER;
    else if (!strcmp(cap, "halo")) o.capacity = SHUTTLE_CAP_HALO;
    else if (!strcmp(cap, "raw")) o.capacity = SHUTTLE_CAP_RAW;
    else {
      fprintf(stderr, "spadmap bench shuttle: --capacity must be paper, halo or raw, not '%s'\n", Cli_safe(cap));
      return EXIT_USAGE;
    }
  }
  Arch arch;
  SpError err;
  if (Arch_load(arch_path, &arch, &err) != SP_OK || Shuttle_optionsFromArch(&arch, &o, &err) != SP_OK) {
    fprintf(stderr, "spadmap bench shuttle: %s\n", Cli_safe(err.text));
    return EXIT_INVALID;
  }
  struct stat sb; /* before any table: the networks' part needs it */
  if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
    fprintf(stderr, "spadmap bench shuttle: --dir %s: not a directory\n", Cli_safe(dir));
    return EXIT_INVALID;
  }
  if (Cli_value(c, &a, "--buffer-sweep")) {
    char prec[96];
    printf("# SmartShuttle under Eq. 2: %s (%s), capacity rule %s, buffer swept\n\n", arch.name,
           BenchShuttle_precision(&o, prec, sizeof prec), cap ? cap : "paper");
    return BenchShuttle_sweep(&o) ? EXIT_INVALID : EXIT_OK;
  }
  char prec[96];
  printf("# SmartShuttle under Eq. 2: %s (%lld-byte buffer, %s), capacity rule %s\n\n", arch.name,
         (long long)o.glb_bytes, BenchShuttle_precision(&o, prec, sizeof prec), cap ? cap : "paper");
  BenchShuttle_table2(&o);
  if (BenchShuttle_baselines(&o)) return EXIT_INVALID;
  int bad = BenchShuttle_net(dir, "vgg16", 3, &o, 434.8, 285.7);
  bad += BenchShuttle_net(dir, "alexnet", 4, &o, 526.3, 344.8);
  return bad ? EXIT_INVALID : EXIT_OK;
}

const CliCommand Cli_benchShuttle = {
    "bench shuttle", "[options]",
    "SmartShuttle: Table II (paper, rule, oracle tilings), Table III's baselines, MACs per DRAM access of VGG16 and "
    "AlexNet; --buffer-sweep: Fig. 10.",
    BenchShuttle_options, BenchShuttle_run, CLI_IN_NET | CLI_IN(FILE_ARCH)};
