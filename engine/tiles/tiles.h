/* tiles: when an op does not fit on chip it runs tile by tile; its tensors live
 * in off-chip memory (DRAM) whole only between their last output tile and their
 * first input tile. This module tiles a network, renders each tile's contiguous
 * chunks, allocates DRAM tile-aware (TAA: Kvochko et al., "Off-Chip Memory
 * Allocation for Neural Processing Units", IEEE Access 2024, Algorithms 1-3) or
 * with the Shared Objects / offset baselines (through engine/pack), and writes,
 * reads and validates the resulting off-chip plan.
 *
 * Time. The network runs in its schedule (the file order unless one is given); op s runs in K_s tiles,
 * one sub-step each, numbered across the whole network. Sub-step u has two ticks:
 * 2u+1, when it reads its input tiles into the chip, and 2u+2, when it writes
 * its output tiles back. Tick 0 is before the first op (graph inputs are in
 * DRAM), the last tick 2U+1 after the last (graph outputs still are). Lifetimes
 * are inclusive tick ranges; a tile read at tick 2u+1 frees its bytes for an
 * output tile written at 2u+2, as in the paper's Section III.C example.
 *
 * Tiles of a tensor T (produced by op p, last read by op c):
 *   out j : written at its op tile's write tick, live until T is whole (W)
 *   whole : the whole tensor, live from W to R, the first read tick of c
 *   in j  : live from R until c's tile that last needs it has read it
 * Earlier consumers read T while it is whole. Graph inputs are whole from tick 0,
 * graph outputs until the last tick. Parameters are not in DRAM's budget here
 * (weights have their own region), as in the paper's Table 1. */
#ifndef SPADMAP_TILES_H
#define SPADMAP_TILES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "net.h"
#include "status.h"

enum { TILES_MAX_RANK = 8 };
/* A tile with more chunks than this is refused (SP_ERR_ARG): it would need an
 * absurd number of DMA transfers and only arises from a degenerate layout. */
enum { TILES_MAX_CHUNKS = 1 << 20 };

/* ---- RenderChunks (Algorithm 3) and CollisionSize (Algorithm 2) ---------- */

typedef struct {
  int64_t offset, size; /* bytes from the tensor's base */
} TilesChunk;

/* A tile's place in its tensor: per dimension its extent (shape), first index
 * (origin) and stride in elements; esize bytes per element. */
typedef struct {
  int rank;
  int64_t shape[TILES_MAX_RANK], origin[TILES_MAX_RANK], strides[TILES_MAX_RANK];
  int64_t esize;
} TilesView;

/* DRAM layout of tensors the network file gives no strides for. */
typedef enum {
  TILES_LAYOUT_ROW_MAJOR, /* the shape's own order: CHW / NCHW (default) */
  TILES_LAYOUT_NHWC,      /* channels last for rank >= 3 (channel axis 1 of rank >= 4, 0 of rank 3),
                           * the layout of the paper's TFLite models (its Table 3) */
  TILES_LAYOUT_COUNT
} TilesLayout;

/* Row-major (CHW / NCHW) strides for a shape, in elements; false when one
 * would pass int64 (the strides set before it are written). */
bool Tiles_rowMajor(int rank, const int64_t *shape, int64_t *strides);
/* Strides of a shape in a layout, in elements. */
void Tiles_layoutStrides(TilesLayout layout, int rank, const int64_t *shape, int64_t *strides);
const char *TilesLayout_name(TilesLayout l);
bool TilesLayout_parse(const char *s, TilesLayout *l);

/* Which dimension a tensor's tiles cut. The paper gives no rule (its compiler,
 * ONE, chose); its worked example (III.C: tile i2 of a 4x128x128 CHW tensor at
 * offset 16384, one 128x128 plane) and its Table 3 (tensors as blocks of 32
 * channels, the block axis outermost) cut the layout's outermost dimension, so
 * every tile is one contiguous chunk. Ours cuts rows whatever the layout: in
 * NCHW a row tile is one chunk per channel, the case Algorithms 2 and 3 exist for. */
typedef enum {
  TILES_SHAPE_ROWS,  /* "rows": H of CHW / NCHW (Tiles_splitAxis); the default */
  TILES_SHAPE_OUTER, /* "outer": the dimension of largest stride with extent >= 2 (the paper's) */
  TILES_SHAPE_COUNT
} TilesShape;
const char *TilesShape_name(TilesShape s);
bool TilesShape_parse(const char *s, TilesShape *out);
/* The dimension a rule cuts, given the tensor's strides; -1 when no dimension
 * has extent >= 2. */
int Tiles_tileAxis(TilesShape s, int rank, const int64_t *shape, const int64_t *strides);
/* The same for a network tensor: its file strides, else the layout's. */
int Tiles_tensorAxis(const Tensor *t, TilesLayout layout, TilesShape s);
/* The contiguous chunks of a tile, by ascending offset, adjacent ones merged;
 * offsets include the origin's offset off(t) (Eq. 1) times esize. *chunks is
 * malloc'd. SP_ERR_ARG for a bad view or more than TILES_MAX_CHUNKS chunks. */
Status Tiles_renderChunks(const TilesView *v, TilesChunk **chunks, int *n, SpError *err);
/* Algorithm 2: the chunks of t1 at base1 against those of t2 at base2 (both
 * ascending): 0 when no byte is shared, else t1end - t2start of the first
 * overlapping pair found by the linear scan (> 0). Called as
 * CollisionSize(allocated, its base, candidate, its address) it is how far the
 * candidate must move up to clear that chunk. */
int64_t Tiles_collisionSize(const TilesChunk *c1, int n1, int64_t base1, const TilesChunk *c2, int n2, int64_t base2);

/* ---- the tiled network -------------------------------------------------- */

typedef enum { TILES_ROLE_OUT, TILES_ROLE_WHOLE, TILES_ROLE_IN, TILES_ROLE_COUNT } TilesRole;

typedef struct {
  int tensor;            /* index into TilesModel.tensors */
  TilesRole role;
  int index, count;      /* tile index of count (whole: 0 of 1) */
  int op;                /* net op that writes (out) or last reads (in) it; -1 whole */
  int64_t first, last;   /* lifetime, inclusive ticks */
  TilesView view;
  const TilesChunk *chunks; /* offsets from the tensor's base, ascending */
  int nchunks;
} TilesTile;

typedef struct {
  int net_tensor;        /* index into net->tensors */
  int64_t bytes;         /* the layout's extent in bytes (base .. base + bytes) */
  int64_t first, last;   /* the whole stay in DRAM (hull of its tiles' lifetimes) */
  int64_t whole_first, whole_last; /* the tensor whole: last output tile .. first input tile */
  int tile0, ntiles;     /* its tiles in TilesModel.tiles */
  int axis;              /* the dimension it is split along, -1 when never split */
} TilesTensor;

typedef struct {
  int ntiles;            /* K: sub-steps this op runs in */
  int substep0;          /* its first sub-step */
  int step;              /* its position in the schedule */
  int64_t working_bytes; /* distinct non-param inputs + outputs */
  int64_t tile_bytes;    /* the largest working set of one of its tiles */
  bool from_file;        /* K came from the network file's "tiles" */
} TilesOp;


/* How far a tiled network is: the pass (from 1; each one aims lower when a tile
 * came out over the budget, 16 at most), and done of total units of the pass
 * (the net's tensors tiled, then its ops written, then the check: done ==
 * total at the end of a pass). */
typedef struct {
  int pass;
  int64_t done, total;
} TilesProgress;

typedef struct {
  int64_t capacity;      /* on-chip bytes the tiling rule targets (<= 0: no tiling) */
  TilesLayout layout;    /* default TILES_LAYOUT_ROW_MAJOR */
  TilesShape shape;      /* default TILES_SHAPE_ROWS */
  const int *order;      /* the schedule: order[step] = op (a topological order); NULL: file order */
  bool file_tiles_at_least; /* an op's file "tiles" is a minimum, the rule may cut finer (default false) */
  /* Tiles_tiledNet*: called as the tiling goes, in the calling thread (NULL:
   * not). It may be called thousands of times a second: a UI keeps the figure
   * and shows it at its own pace. */
  void (*progress)(const TilesProgress *p, void *user);
  void *progress_user;
} TilesOptions;

typedef struct {
  const Net *net;
  int64_t capacity;
  TilesLayout layout;
  TilesShape shape;
  TilesOp *ops;          /* net->nops, in file order */
  int nsubsteps;
  int64_t nticks;        /* ticks 0 .. nticks-1 */
  TilesTensor *tensors;  /* the net's non-param tensors, in file order */
  int ntensors;
  TilesTile *tiles;
  int ntiles;
  TilesChunk *chunk_pool;
  int64_t nchunks;
} TilesModel;

void TilesOptions_init(TilesOptions *o);
/* Tiles every op by the rule (or the file's "tiles") and builds the tiles of
 * every non-param tensor with their chunks and lifetimes. */
Status Tiles_build(const Net *net, const TilesOptions *o, TilesModel **out, SpError *err);
void Tiles_free(TilesModel *m);
/* A network whose ops are the tiled schedule's sub-steps ("op#j") and whose
 * tensors are the row pieces they read and write ("t[r0:r1]"; cut wherever a
 * tiling touching the tensor cuts it), so the usual solver and validator stage
 * the tiles on chip at budgets below the original M_R. Its M_R is at most
 * o->capacity (the rule is re-aimed lower when pieces round up); else
 * SP_ERR_INFEASIBLE when rows cannot be cut finer. Parameters stay whole (each
 * tile reads them); convolution halos are ignored. text (may be NULL) gets the
 * network's JSON. */
Status Tiles_tiledNet(const Net *net, const TilesOptions *o, Net **out, char **text, SpError *err);
/* The same, and the options the tiling used in the end (capacity re-aimed,
 * file tiles as minimums): Tiles_build with them gives the tiled network's
 * sub-steps, one per op of the tiled network, in order. */
Status Tiles_tiledNetUsed(const Net *net, const TilesOptions *o, Net **out, char **text, TilesOptions *used,
                          SpError *err);
/* The tiling rule for one op: 1 when working <= capacity (or capacity <= 0),
 * else ceil(working / capacity) capped at the split extent. */
int Tiles_opTileCount(int64_t working_bytes, int64_t capacity, int64_t split_extent);
/* The dimension a tensor is split along: rows (rank-2) first, then the last
 * dimension, then outward; the first with extent >= 2; -1 when none. */
int Tiles_splitAxis(int rank, const int64_t *shape);
/* "read 3.1" style label of a tick: sub-step and phase. */
const char *TilesRole_name(TilesRole r);

/* ---- TAA and the baselines ------------------------------------------------ */

typedef enum { TAA_ORDER_SIZE, TAA_ORDER_LIFETIME, TAA_ORDER_PEERS, TAA_ORDER_COUNT } TaaOrder;
typedef enum {
  OFFCHIP_TAA,           /* Algorithm 1 over tile lifetimes */
  OFFCHIP_SO_SIZE,       /* Shared Objects, greedy by size (engine/pack), whole lifetimes */
  OFFCHIP_SO_BREADTH,
  OFFCHIP_SO_IMPROVED,
  OFFCHIP_OFFSET_SIZE,   /* offset calculation, greedy by size */
  OFFCHIP_METHOD_COUNT
} OffchipMethod;

typedef struct {
  OffchipMethod method;  /* default OFFCHIP_TAA */
  TaaOrder order;        /* default TAA_ORDER_SIZE */
  bool fallback;         /* TAA: if the best Shared Objects strategy is lower, use it (default true) */
  /* TAA: the Clock_now() time it stops at (default 0: none). With fallback the
   * Shared Objects strategies (fast, not polled) run first, so a stopped TAA
   * leaves their best plan (OffchipResult.stopped); without, SP_ERR_LIMIT. */
  double deadline;
} OffchipOptions;

typedef struct {
  int64_t *base;         /* per TilesModel tensor */
  int64_t peak_bytes;    /* max(base + bytes) */
  int64_t lower_bound;   /* the most bytes live at one tick (tile level) */
  double seconds;        /* allocation time (after tiling and chunk rendering; TAA: without the fallback check) */
  OffchipMethod method;  /* what placed the bases (a SO method after a fallback) */
  bool fell_back;
  int64_t taa_peak;      /* TAA's own peak before any fallback (-1 other methods) */
  long shifts;           /* TAA: address shifts made by collisions */
  bool stopped;          /* the deadline stopped TAA: the bases are the best Shared Objects strategy's (method) */
  int taa_placed;        /* TAA: tensors it placed (all of them unless stopped) */
} OffchipResult;

void OffchipOptions_init(OffchipOptions *o);
Status Offchip_allocate(const TilesModel *m, const OffchipOptions *o, OffchipResult *r, SpError *err);
void OffchipResult_free(OffchipResult *r);
/* Algorithm 1 on an explicit set of tensors: used by Offchip_allocate and by the
 * tests (the paper's worked example). tiles_of[t] lists tensor t's tiles. */
typedef struct {
  int64_t bytes;
  int64_t whole_first, whole_last;
  const TilesTile *tiles;
  int ntiles;
} TaaTensor;
/* Places tensors in the given order; base[] gets addresses. */
Status Taa_allocate(const TaaTensor *t, int n, const int *order, int64_t *base, long *shifts, SpError *err);
/* The same, stopping with SP_ERR_LIMIT once Clock_now() passes deadline (> 0;
 * read every 64 tensors: each scans the placed ones); *placed (may be NULL)
 * gets how many tensors it placed in order. */
Status Taa_allocateUntil(const TaaTensor *t, int n, const int *order, double deadline, int64_t *base, long *shifts,
                         int *placed, SpError *err);
/* Sorts tensor indices by one of the three orders (ties: first tick, index). */
Status Taa_order(const TaaTensor *t, int n, TaaOrder order, int *out, SpError *err);

const char *TaaOrder_name(TaaOrder o);
bool TaaOrder_parse(const char *s, TaaOrder *o);
const char *OffchipMethod_name(OffchipMethod m);
bool OffchipMethod_parse(const char *s, OffchipMethod *m);

/* ---- the off-chip plan: its own file format and validator ----------------- */

typedef struct {
  char *name;
  int64_t base, bytes;
  int tile0, ntiles;
} OffchipPlanTensor;

typedef struct {
  int tensor;            /* index into plan tensors */
  TilesRole role;
  int index, count;
  char *op;              /* NULL for whole */
  int64_t first, last;
  TilesView view;
  TilesChunk *chunks;
  int nchunks;
} OffchipPlanTile;

typedef struct {
  char *network;
  int64_t capacity;
  TilesLayout layout;    /* "layout": how tensors without file strides lie (default nchw) */
  TilesShape shape;      /* "tile_shape": the dimension tiles cut (default rows) */
  char *method, *order;
  bool fallback;
  int64_t nticks, peak_bytes;
  double seconds;
  OffchipPlanTensor *tensors;
  int ntensors;
  OffchipPlanTile *tiles;
  int ntiles;
} OffchipPlan;

/* The plan of a model and its allocation (copies everything it needs). */
Status OffchipPlan_fromModel(const TilesModel *m, const OffchipResult *r, const OffchipOptions *o,
                             OffchipPlan **out, SpError *err);
void OffchipPlan_free(OffchipPlan *p);
/* The "spadmap-offchip" JSON text (malloc'd). */
Status OffchipPlan_toJson(const OffchipPlan *p, char **text, SpError *err);
/* Parses a "spadmap-offchip" document; errors name the JSON path. */
Status OffchipPlan_parse(const char *text, size_t len, const char *label, OffchipPlan **out, SpError *err);
Status OffchipPlan_load(const char *path, OffchipPlan **out, SpError *err);
/* Is this JSON text an off-chip plan ("format": "spadmap-offchip")? */
bool OffchipPlan_sniff(const char *text, size_t len);
/* The same for a file (false when it cannot be read: the caller's loader reports that). */
bool Offchip_isPlanFile(const char *path);

/* The independent check, from the plan alone (net may be NULL; if given, the
 * plan's tensors must be its non-param tensors with their sizes): every tile's
 * chunks re-rendered from its view, every chunk inside its tensor, lifetimes
 * inside the ticks, no two chunks of different tensors sharing a byte while
 * both live, peak_bytes equal to max(base + bytes). With the network, also
 * that the tiles are the ones its tiling at the plan's budget, layout and tile shape gives
 * (file order): the same views and lifetimes, so a plan cannot free a tile
 * early. SP_OK, or SP_ERR_FORMAT
 * with the first problem in err (a collision names the tick, bytes and tiles). */
Status OffchipPlan_validate(const OffchipPlan *p, const Net *net, SpError *err);

#endif
