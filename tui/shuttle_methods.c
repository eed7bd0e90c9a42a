/* shuttle_methods: prints SmartShuttle's analysis and the offloading steps of one
 * layer (used by the layer command). */
#include "shuttle_methods.h"

#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "datadir.h"
#include "cli.h"
#include "clock.h"
#include "text.h"
#include "words.h"
#include "layer/arch.h"
#include "layer/shuttle.h"
#include "layer/steps.h"

const char *const ShuttleMethod_names[] = {"smartshuttle", "steps-s1", "steps-row", "steps-zigzag", "steps-ilp", NULL};

const char *const ShuttleMethod_help[] = {
    "SmartShuttle: IRO/ORO/WRO, Table I's rule and the exact oracle (Eq. 2-3), DRAM traffic per operand",
    "offloading steps, S1-baseline: one patch per step, row-major",
    "offloading steps, Row-by-Row: groups of G patches in row-major order",
    "offloading steps, ZigZag: groups of G patches, rows alternating direction",
    "offloading steps, the Section 5 ILP grouping of patches (GLPK)",
    NULL};

void ShuttleMethodOptions_init(ShuttleMethodOptions *o) {
  memset(o, 0, sizeof *o);
  o->group_size = 4;
  o->max_loads = 2;
  o->tl = o->tw = o->tacc = 1;
  o->time_limit = 10;
}

bool ShuttleMethod_known(const char *method) {
  for (int i = 0; ShuttleMethod_names[i]; i++)
    if (strcmp(method, ShuttleMethod_names[i]) == 0) return true;
  return false;
}

/* "576.0 KiB": the one vocabulary's sizes (words.c), as the rest of the tool. */
static const char *ShuttleMethod_size(double bytes, char *buf, int n) {
  return Words_bytes(bytes < 0 ? 0 : bytes, buf, (size_t)n);
}

/* One tiling's DRAM traffic per operand, each at its own precision, in binary units (Cli_bytes). */
static void ShuttleMethod_tiling(FILE *out, const char *label, const ShuttleTiling *t, const ShuttleVolume *v,
                                 const ShuttleOptions *o) {
  char bi[32], bo[32], bw[32], bt[32];
  fprintf(out, "  %-7s <Tm %4lld, Tn %4lld, Tr %4lld, Tc %4lld>  ifm %10s  ofm %10s  wght %10s  total %10s\n", label,
          (long long)t->Tm, (long long)t->Tn, (long long)t->Tr, (long long)t->Tc,
          ShuttleMethod_size(v->in * o->bytes[OPND_I], bi, sizeof bi),
          ShuttleMethod_size(v->out * o->bytes[OPND_O], bo, sizeof bo),
          ShuttleMethod_size(v->wt * o->bytes[OPND_W], bw, sizeof bw), ShuttleMethod_size(v->bytes, bt, sizeof bt));
}

static void ShuttleMethod_print(cJSON *o, FILE *out) {
  char *text = cJSON_Print(o);
  if (text) fprintf(out, "%s\n", text);
  cJSON_free(text);
  cJSON_Delete(o);
}

static cJSON *ShuttleMethod_layerJSON(const Layer *l) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "name", l->name);
  const int64_t dims[] = {l->R, l->S, l->P, l->Q, l->C, l->K, l->N};
  const char *names[] = {"R", "S", "P", "Q", "C", "K", "N"};
  for (int i = 0; i < 7; i++) cJSON_AddNumberToObject(o, names[i], (double)dims[i]);
  cJSON_AddNumberToObject(o, "stride", l->stride_h);
  cJSON_AddNumberToObject(o, "groups", l->groups);
  return o;
}

static cJSON *ShuttleMethod_tilingJSON(const ShuttleTiling *t, const ShuttleVolume *v) {
  cJSON *o = cJSON_CreateObject(), *ti = cJSON_AddObjectToObject(o, "tiling"), *vo = cJSON_AddObjectToObject(o, "volume");
  cJSON_AddNumberToObject(ti, "Tm", (double)t->Tm);
  cJSON_AddNumberToObject(ti, "Tn", (double)t->Tn);
  cJSON_AddNumberToObject(ti, "Tr", (double)t->Tr);
  cJSON_AddNumberToObject(ti, "Tc", (double)t->Tc);
  cJSON_AddNumberToObject(vo, "ifm", v->in);
  cJSON_AddNumberToObject(vo, "ofm", v->out);
  cJSON_AddNumberToObject(vo, "wght", v->wt);
  cJSON_AddNumberToObject(vo, "total", v->total);
  cJSON_AddNumberToObject(vo, "bytes", v->bytes);
  return o;
}

/* The exit code of a failed run: only Ctrl-C sets the cancel flag here. */
static int ShuttleMethod_exit(Status st, const ShuttleMethodOptions *mo) {
  return Cli_exitFor(st, mo->cancel && atomic_load(mo->cancel));
}

static int ShuttleMethod_shuttle(const Layer *l, const ShuttleMethodOptions *mo, FILE *out) {
  char safe[512]; /* names and messages escaped for the terminal (Text_escape) */
  ShuttleOptions o;
  ShuttleOptions_init(&o);
  o.cancel = mo->cancel;
  o.time_limit = mo->time_limit > 0 ? mo->time_limit / SHUTTLE_SCHEMES : 0; /* the oracle runs once per scheme */
  Arch arch;
  SpError err;
  const char *path = mo->arch_path ? mo->arch_path : Data_file("arch/smartshuttle.json");
  if (Arch_load(path, &arch, &err) != SP_OK || Shuttle_optionsFromArch(&arch, &o, &err) != SP_OK) {
    fprintf(stderr, "spadmap layer: %s\n", Text_escape(err.text, safe, sizeof safe));
    return EXIT_INVALID;
  }
  if (mo->capacity) {
    if (!strcmp(mo->capacity, "halo")) o.capacity = SHUTTLE_CAP_HALO;
    else if (!strcmp(mo->capacity, "raw")) o.capacity = SHUTTLE_CAP_RAW;
    else if (strcmp(mo->capacity, "paper") != 0) {
      fprintf(stderr, "spadmap layer: --capacity must be paper, halo or raw, not '%s'\n",
              Text_escape(mo->capacity, safe, sizeof safe));
      return EXIT_USAGE;
    }
  }
  ShuttleLayer r;
  Status status = Shuttle_analyze(l, &o, &r, &err);
  if (status != SP_OK) {
    fprintf(stderr, "spadmap layer: %s\n", Text_escape(err.text, safe, sizeof safe));
    return ShuttleMethod_exit(status, mo);
  }
  if (mo->json) {
    static const char *const caps[] = {"paper", "halo", "raw"};
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "method", "smartshuttle");
    cJSON_AddItemToObject(j, "layer", ShuttleMethod_layerJSON(l));
    cJSON *pl = cJSON_AddObjectToObject(j, "platform");
    cJSON_AddStringToObject(pl, "arch", arch.name);
    cJSON_AddNumberToObject(pl, "glb_bytes", (double)o.glb_bytes);
    cJSON *bpe = cJSON_AddObjectToObject(pl, "bytes_per_elem"); /* each operand's precision */
    cJSON_AddNumberToObject(bpe, "ifm", o.bytes[OPND_I]);
    cJSON_AddNumberToObject(bpe, "ofm", o.bytes[OPND_O]);
    cJSON_AddNumberToObject(bpe, "wght", o.bytes[OPND_W]);
    cJSON_AddStringToObject(pl, "capacity", caps[o.capacity]);
    cJSON_AddStringToObject(j, "volume_unit", "elements");
    cJSON *schemes = cJSON_AddObjectToObject(j, "schemes");
    for (int s = 0; s < SHUTTLE_SCHEMES; s++) {
      cJSON *sc = cJSON_AddObjectToObject(schemes, Shuttle_schemeName(s));
      cJSON_AddItemToObject(sc, "rule", ShuttleMethod_tilingJSON(&r.rule_tiling[s], &r.rule_vol[s]));
      cJSON_AddItemToObject(sc, "oracle", ShuttleMethod_tilingJSON(&r.oracle_tiling[s], &r.oracle_vol[s]));
    }
    cJSON_AddStringToObject(j, "rule_pick", Shuttle_schemeName(r.rule_scheme));
    cJSON_AddStringToObject(j, "oracle_pick", Shuttle_schemeName(r.oracle_scheme));
    cJSON_AddNumberToObject(j, "macs", (double)r.macs);
    cJSON_AddNumberToObject(j, "macs_per_access_rule", (double)r.macs / r.rule_vol[r.rule_scheme].total);
    cJSON_AddNumberToObject(j, "macs_per_access_oracle", (double)r.macs / r.oracle_vol[r.oracle_scheme].total);
    ShuttleMethod_print(j, out);
    return 0;
  }
  static const char *const cap_names[] = {"paper (sum gamma*B, input tile without halo)",
                                          "halo (sum gamma*B with the input halo)", "raw (uncompressed, with halo)"};
  char macs[32];
  fprintf(out, "SmartShuttle on %s: M=%lld N=%lld R=%lld C=%lld K=%lldx%lld S=%d D=%lld (%s MACs)\n",
          Text_escape(l->name, safe, sizeof safe),
          (long long)l->K, (long long)l->C, (long long)l->P, (long long)l->Q, (long long)l->R, (long long)l->S,
          l->stride_h, (long long)l->N, Words_count((double)r.macs, macs, sizeof macs));
  char glb[32], prec[96];
  if (Shuttle_onePrecision(&o)) snprintf(prec, sizeof prec, "%d-byte elements", o.bytes[OPND_I]);
  else
    snprintf(prec, sizeof prec, "elements of %d (ifm), %d (ofm), %d (wght) bytes", o.bytes[OPND_I], o.bytes[OPND_O],
             o.bytes[OPND_W]);
  fprintf(out, "platform %s: %s buffer, %s, capacity rule %s, lower bounds 8\n\n", arch.name,
          ShuttleMethod_size((double)o.glb_bytes, glb, sizeof glb), prec, cap_names[o.capacity]);
  for (int s = 0; s < SHUTTLE_SCHEMES; s++) {
    fprintf(out, "%s%s%s\n", Shuttle_schemeName(s), s == (int)r.rule_scheme ? "  <- Table I's pick" : "",
            s == (int)r.oracle_scheme ? "  <- the oracle's pick (least volume)" : "");
    ShuttleMethod_tiling(out, "rule", &r.rule_tiling[s], &r.rule_vol[s], &o);
    ShuttleMethod_tiling(out, "oracle", &r.oracle_tiling[s], &r.oracle_vol[s], &o);
  }
  const ShuttleVolume *rv = &r.rule_vol[r.rule_scheme], *ov = &r.oracle_vol[r.oracle_scheme];
  fprintf(out, "\nMACs per DRAM access: rule (%s) %.1f, oracle (%s) %.1f; oracle searched %lld tilings\n",
          Shuttle_schemeName(r.rule_scheme), (double)r.macs / rv->total, Shuttle_schemeName(r.oracle_scheme),
          (double)r.macs / ov->total, (long long)r.evaluated);
  return 0;
}

static int ShuttleMethod_steps(StepsStrategy strategy, const Layer *l, const ShuttleMethodOptions *mo, FILE *out) {
  char safe[512]; /* names and messages escaped for the terminal (Text_escape) */
  StepsOptions o;
  StepsOptions_init(&o);
  o.size_mem = mo->size_mem;
  o.nbop_pe = mo->nbop_pe;
  o.group_size = mo->nbop_pe ? 0 : mo->group_size;
  o.max_loads = mo->max_loads;
  o.time_limit = mo->time_limit;
  o.model = mo->paper_model ? STEPS_MODEL_PAPER : STEPS_MODEL_EXACT;
  o.threads = mo->threads;
  o.groups = mo->steps;
  o.cancel = mo->cancel;
  o.progress = mo->progress;
  o.user = mo->user;
  o.tl = mo->tl, o.tw = mo->tw, o.tacc = mo->tacc;
  StepsPlan p;
  SpError err;
  const double t0 = Clock_now();
  Status status = Steps_plan(l, &o, strategy, &p, &err);
  if (status != SP_OK) {
    fprintf(stderr, "spadmap layer: %s\n", Text_escape(err.text, safe, sizeof safe));
    return ShuttleMethod_exit(status, mo);
  }
  /* The check stops on Ctrl-C too. A plan kept from an ILP that Ctrl-C stopped is
   * still checked: the flag is cleared for the check, so that only a second Ctrl-C
   * stops it, and set again after (the caller reads it for the exit code). */
  bool ilp_cancelled = strategy == STEPS_ILP && p.ilp_status == ILP_CANCELLED && mo->cancel &&
                       atomic_exchange(mo->cancel, 0);
  /* --time-limit bounds the run, the check included: it gets what the plan left
   * (at least a moment, so a plan found at the limit is still checked if small) */
  if (o.time_limit > 0) o.time_limit = fmax(o.time_limit - (Clock_now() - t0), 0.05);
  Status check = Steps_execute(l, &o, &p, 1, &err);
  if (ilp_cancelled) atomic_store(mo->cancel, 1);
  /* skipped (too large to simulate, no memory): no verdict on the plan, not a failure */
  bool skipped = check == SP_ERR_LIMIT || check == SP_ERR_NOMEM;
  const char *verdict = check == SP_OK ? "ok" : err.text; /* "cancelled at step ...", "skipped (...)", the fault */
  int code = check == SP_ERR_CANCELLED                                  ? ShuttleMethod_exit(check, mo)
             : check != SP_OK && !skipped                               ? EXIT_INVALID
             : strategy == STEPS_ILP && p.ilp_status == ILP_CANCELLED ? EXIT_INTERRUPTED
                                                                      : EXIT_OK;
  if (mo->json) {
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "method", Steps_strategyName(strategy));
    cJSON_AddItemToObject(j, "layer", ShuttleMethod_layerJSON(l));
    cJSON_AddNumberToObject(j, "group_size", p.group_size);
    cJSON_AddNumberToObject(j, "steps", p.nsteps);
    cJSON_AddNumberToObject(j, "duration", (double)p.duration);
    cJSON_AddNumberToObject(j, "objective_eq15", (double)p.objective);
    cJSON_AddNumberToObject(j, "loaded_elements", (double)p.loaded_in);
    cJSON_AddNumberToObject(j, "written_elements", (double)p.written);
    cJSON_AddNumberToObject(j, "peak", (double)p.peak);
    cJSON_AddBoolToObject(j, "fits", p.fits);
    cJSON_AddNumberToObject(j, "max_loads_per_pixel", p.max_loads);
    if (strategy == STEPS_ILP) {
      cJSON *ilp = cJSON_AddObjectToObject(j, "ilp");
      cJSON_AddStringToObject(ilp, "status", IlpStatus_name(p.ilp_status));
      cJSON_AddNumberToObject(ilp, "seconds", p.ilp_seconds);
      cJSON_AddNumberToObject(ilp, "bound", p.ilp_bound);
      cJSON_AddNumberToObject(ilp, "mip_start", (double)p.warm_objective);
      if (p.proven_by) cJSON_AddStringToObject(ilp, "proven_by", p.proven_by);
      if (p.wall_stopped) cJSON_AddBoolToObject(ilp, "wall_clock_stopped", true);
      if (p.search_threads) cJSON_AddNumberToObject(ilp, "search_threads", p.search_threads);
    }
    cJSON_AddStringToObject(j, "functional_check", verdict);
    cJSON *arr = cJSON_AddArrayToObject(j, "plan");
    for (int k = 0; k < p.nsteps; k++) {
      const Step *s = &p.steps[k];
      cJSON *st = cJSON_CreateObject(), *pt = cJSON_AddArrayToObject(st, "patches");
      for (int q = 0; q < s->npatches; q++) {
        cJSON *pair = cJSON_CreateArray();
        cJSON_AddItemToArray(pair, cJSON_CreateNumber(s->patches[q] / p.wout));
        cJSON_AddItemToArray(pair, cJSON_CreateNumber(s->patches[q] % p.wout));
        cJSON_AddItemToArray(pt, pair);
      }
      cJSON_AddNumberToObject(st, "loaded", (double)(s->load_in + s->load_ker));
      cJSON_AddNumberToObject(st, "freed", (double)s->free_in);
      cJSON_AddNumberToObject(st, "written", (double)s->write_out);
      cJSON_AddNumberToObject(st, "on_chip", (double)s->footprint);
      cJSON_AddNumberToObject(st, "duration", (double)s->duration);
      cJSON_AddItemToArray(arr, st);
    }
    cJSON_AddNumberToObject(j, "final_write", (double)p.final_write);
    ShuttleMethod_print(j, out);
    StepsPlan_free(&p);
    return code;
  }
  fprintf(out, "Offloading steps (%s) on %s: input %dx%dx%d (padded), %d kernels %dx%d, stride %d, output %dx%d\n",
          Steps_strategyName(strategy), Text_escape(l->name, safe, sizeof safe), p.cin, p.hin, p.win, p.cout, p.hk,
          p.wk, p.sh, p.hout, p.wout);
  int kmin = (p.hout * p.wout + p.group_size - 1) / p.group_size;
  char kmin_note[48] = "", start[32] = "no MIP start";
  if (p.nsteps != kmin) snprintf(kmin_note, sizeof kmin_note, " (Kmin %d)", kmin);
  if (p.warm_objective >= 0) snprintf(start, sizeof start, "MIP start %lld", (long long)p.warm_objective);
  fprintf(out, "G = %d patches per step, %d steps%s; tl = %lld, tw = %lld, tacc = %lld\n", p.group_size, p.nsteps,
          kmin_note, (long long)o.tl, (long long)o.tw, (long long)o.tacc);
  if (strategy == STEPS_ILP)
    fprintf(out, "ILP: %s%s in %.2f s, %ld nodes, bound %.0f (%s)%s\n", IlpStatus_name(p.ilp_status),
            p.wall_stopped && p.ilp_status == ILP_TIMEOUT ? " (the wall clock, not the work budget: may differ on an idler machine)" : "",
            p.ilp_seconds,
            p.ilp_nodes, p.ilp_bound, start,
            !p.proven_by                      ? ""
            : strcmp(p.proven_by, "bound") == 0 ? ", proven by the trivial bound (every pixel loaded once)"
            : strcmp(p.proven_by, "search") == 0 ? ", proven by the exact search"
                                                 : ", proven by the MIP");
  if (strategy == STEPS_ILP && p.search_threads)
    fprintf(out, "exact search: %.2f s, %ld nodes, on %d thread%s\n", p.search_seconds, p.search_nodes, p.search_threads,
            p.search_threads > 1 ? "s" : "");
  fprintf(out, "duration %lld   Eq. 15 objective %lld   loaded %lld elements (%lld pixels)   written %lld\n",
          (long long)p.duration, (long long)p.objective, (long long)p.loaded_in, (long long)p.loaded_pixels,
          (long long)p.written);
  fprintf(out, "peak on chip %lld elements%s   most loads of one pixel %d   functional check: %s\n\n",
          (long long)p.peak, p.fits ? "" : " (EXCEEDS sizeMEM)", p.max_loads, verdict);
  fprintf(out, "%6s %-28s %8s %8s %8s %10s %10s\n", "step", "patches (row,col)", "loaded", "freed", "written",
          "on chip", "duration");
  int shown = mo->all_steps ? p.nsteps : (p.nsteps < 40 ? p.nsteps : 40);
  for (int k = 0; k < shown; k++) {
    const Step *s = &p.steps[k];
    char pat[64] = "";
    int at = 0;
    for (int q = 0; q < s->npatches && at < 50; q++)
      at += snprintf(pat + at, sizeof pat - (size_t)at, "%s(%d,%d)", q ? " " : "", s->patches[q] / p.wout,
                     s->patches[q] % p.wout);
    if (at >= 50) snprintf(pat + 44, sizeof pat - 44, " ...");
    fprintf(out, "%6d %-28s %8lld %8lld %8lld %10lld %10lld\n", k + 1, pat, (long long)(s->load_in + s->load_ker),
            (long long)s->free_in, (long long)s->write_out, (long long)s->footprint, (long long)s->duration);
  }
  if (shown < p.nsteps) fprintf(out, "  ... %d more steps (--all)\n", p.nsteps - shown);
  fprintf(out, "%6s %-28s %8s %8s %8lld %10s\n", "end", "(write back the last outputs)", "", "",
          (long long)p.final_write, "");
  StepsPlan_free(&p);
  return code;
}

int ShuttleMethod_run(const char *method, const Layer *l, const ShuttleMethodOptions *o, FILE *out) {
  char safe[128];
  if (!strcmp(method, "smartshuttle")) return ShuttleMethod_shuttle(l, o, out);
  static const struct {
    const char *name;
    StepsStrategy s;
  } steps[] = {{"steps-s1", STEPS_S1_BASELINE}, {"steps-row", STEPS_ROW}, {"steps-zigzag", STEPS_ZIGZAG},
               {"steps-ilp", STEPS_ILP}};
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
    if (!strcmp(method, steps[i].name)) return ShuttleMethod_steps(steps[i].s, l, o, out);
  fprintf(stderr, "spadmap layer: unknown method '%s'\n", Text_escape(method, safe, sizeof safe));
  return EXIT_USAGE;
}
