/* shuttle_view: SmartShuttle's scheme table for one layer: per reuse scheme the
 * rule's and the oracle's tiling and DRAM volume per operand, with the picks. */
#include "steps_view.h"
#include "words.h"

#include <stdio.h>

void ShuttleView_draw(Grid *g, int x, int y, int w, int h, const Layer *l, const ShuttleOptions *o,
                      const ShuttleLayer *r) {
  if (!r || h < 12 || w < 60) return;
  const double mib = 1024.0 * 1024; /* binary units, as the rest of the tool */
  char glb[32];
  /* one naming on the screen: CoSA's (R S P Q C K N), as the view's title and the
   * mappers use; the paper's own letters (M N R C K) mean other dimensions, so
   * they are given once, in the legend line under the table */
  Grid_printf(g, x, y, w, ROLE_TITLE, ATTR_BOLD, "SmartShuttle: K=%lld C=%lld P=%lld Q=%lld R=%lld stride %d N=%lld, %s buffer",
              (long long)l->K, (long long)l->C, (long long)l->P, (long long)l->Q, (long long)l->R, l->stride_h,
              (long long)l->N, Words_bytes((double)o->glb_bytes, glb, sizeof glb));
  Grid_printf(g, x, y + 2, w, ROLE_AXIS, 0, "%-6s %-7s %-22s %9s %9s %9s %9s", "scheme", "by", "tile <TK, TC, TP, TQ>",
              "ifm MiB", "ofm MiB", "wght MiB", "total MiB");
  int row = y + 3;
  for (int s = 0; s < SHUTTLE_SCHEMES; s++)
    for (int k = 0; k < 2; k++) {
      const ShuttleTiling *t = k ? &r->oracle_tiling[s] : &r->rule_tiling[s];
      const ShuttleVolume *v = k ? &r->oracle_vol[s] : &r->rule_vol[s];
      bool pick = k ? s == (int)r->oracle_scheme : s == (int)r->rule_scheme;
      char tiling[40];
      snprintf(tiling, sizeof tiling, "<%lld, %lld, %lld, %lld>", (long long)t->Tm, (long long)t->Tn, (long long)t->Tr,
               (long long)t->Tc);
      Grid_printf(g, x, row++, w, pick ? (k ? ROLE_OK : ROLE_WARN) : ROLE_DEFAULT, pick ? ATTR_BOLD : 0,
                  "%-6s %-7s %-22s %9.2f %9.2f %9.2f %9.2f%s", k ? "" : Shuttle_schemeName(s), k ? "oracle" : "rule",
                  tiling, v->in * o->bytes[OPND_I] / mib, v->out * o->bytes[OPND_O] / mib,
                  v->wt * o->bytes[OPND_W] / mib, v->bytes / mib,
                  pick ? (k ? " <oracle" : " <rule") : "");
    }
  const ShuttleVolume *rv = &r->rule_vol[r->rule_scheme], *ov = &r->oracle_vol[r->oracle_scheme];
  Grid_printf(g, x, row, w, ROLE_DIM, 0, "<rule: Table I's pick   <oracle: least volume (Eq. 2)");
  Grid_printf(g, x, row + 1, w, ROLE_DEFAULT, 0, "MACs per DRAM access: rule %.1f, oracle %.1f", (double)r->macs / rv->total,
              (double)r->macs / ov->total);
  if (row + 4 < y + h) {
    Grid_text(g, x, row + 2, w, ROLE_DIM, 0, "tiles: TK, TC in channels; TP, TQ in output rows, columns"); /* the unit */
    Grid_text(g, x, row + 3, w, ROLE_DIM, 0, "names: CoSA's, as the whole view: K out-ch, C in-ch, PxQ output, RxS kernel");
    Grid_text(g, x, row + 4, w, ROLE_DIM, 0, "the paper's: M=K N=C RxC=PxQ KxK=RxS, <Tm,Tn,Tr,Tc> = <TK,TC,TP,TQ>");
  }
}
