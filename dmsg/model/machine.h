/* Machine descriptions for the simulated machines (iWarp, T3D, T3E, Paragon,
 * or one a user writes): the copy-transfer model throughputs, per-message
 * costs, barrier, remote-read latency and prefetch parameters.
 *
 * Text format (docs/ctm.md has every key): one `key = value` per line, `#`
 * starts a comment anywhere, blank lines are ignored. Throughputs are MB/s
 * (10^6 bytes/s) of payload; times carry their unit in the key (_us, _ns).
 * Strides are in 64-bit words, as in the copy-transfer model. */
#ifndef DMSG_MODEL_MACHINE_H
#define DMSG_MODEL_MACHINE_H

#include <stddef.h>
#include "dmsg/base/mech.h"
#include "dmsg/base/status.h"

#define DMSG_MACH_NAME_MAX 32
#define DMSG_MACH_DESC_MAX 200
#define DMSG_MACH_MAX_PTS 16 /* strides per basic transfer */
#define DMSG_MACH_NCONG 3    /* network tables hold congestion 1, 2, 4 */
/* Upper bounds of the model's inputs: far beyond any real machine, so that a
 * typo is an error instead of a plausible-looking simulation. */
#define DMSG_MACH_MAX_MBS 1e6        /* 1 TB/s per basic transfer */
#define DMSG_MACH_MAX_CONGESTION 1024 /* average congestion factor */

/* Pattern code of one end of a transfer: a stride >= 1 (1 = contiguous) or
 * DMSG_PAT_INDEXED (`w`, through an index array). */
#define DMSG_PAT_INDEXED (-1L)

/* One basic transfer over its patterns: throughput at the given strides
 * (ascending) and for indexed access. A curve with only stride 1 means the
 * engine handles contiguous blocks only. */
typedef struct {
    int n;
    long stride[DMSG_MACH_MAX_PTS];
    double mbs[DMSG_MACH_MAX_PTS];
    double indexed; /* 0: not possible / not given */
    int none;       /* the file said `none`: the engine does not exist */
    long line;      /* words per cache line (cache.line_bytes / 8); 0: no cache rule */
} dmsg_mach_curve;

enum { DMSG_BARRIER_HARDWARE = 1, DMSG_BARRIER_TREE = 2 };

/* How a chained (non-contiguous) transfer runs (key chained.form):
 * ADP: xS0 || Nadp || 0Dy, addresses travel with the data and the better of
 * processor and engine serves each end (T3D, T3E); PROCESSOR: xS0 || Nd ||
 * 0Ry, the processors drive both ends and the receiver computes the
 * addresses itself, so only data crosses the network (Paragon, REFERENCE.md
 * 9). */
enum { DMSG_CHAIN_ADP = 0, DMSG_CHAIN_PROCESSOR = 1 };

typedef struct dmsg_machine {
    char name[DMSG_MACH_NAME_MAX];
    char description[DMSG_MACH_DESC_MAX];
    double clock_mhz;
    int nodes; /* typical machine size */
    int cores; /* processors per node */

    /* Basic transfers. A local copy xCy with both ends non-contiguous is
     * composed from the two curves (ctm.c). */
    dmsg_mach_curve copy_gather;  /* xC1: copy.1C1, copy.64C1, copy.wC1 */
    dmsg_mach_curve copy_scatter; /* 1Cy: copy.1C1, copy.1C64, copy.1Cw */
    dmsg_mach_curve send;         /* xS0: processor loads, writes the port */
    dmsg_mach_curve fetch;        /* xF0: fetch / DMA engine */
    dmsg_mach_curve deposit;      /* 0Dy: deposit / DMA engine stores */
    dmsg_mach_curve recv;         /* 0Ry: processor reads the port, stores */
    double net_nd[DMSG_MACH_NCONG];   /* data only, congestion 1, 2, 4 */
    double net_nadp[DMSG_MACH_NCONG]; /* address-data pairs */
    double congestion;                /* typical average congestion factor */
    unsigned mechanisms;              /* DMSG_MECH_* the hardware allows */
    int chain_form;                   /* DMSG_CHAIN_* */
    int line_bytes;                   /* cache line; 0: no cache (stride-independent) */

    double overhead_us; /* per message, send plus receive software */
    double partner_us;  /* switching to another remote partner */
    double buffer_us;   /* message passing layers: taking and releasing one message buffer */
    double match_us;    /* message passing layers: comparing one header with a receive */
    int barrier_kind;
    double barrier_us;     /* hardware: the whole barrier */
    double barrier_hop_us; /* tree: one message hop */
    double read_us;        /* blocking remote read */
    double write_us;       /* blocking remote write (store + ack); 0: not given */
    double amo_us;         /* blocking remote atomic (fetch-and-op round trip); 0: not
                            * given, the simulator takes read_us (a read's round trip) */

    /* Latency hiding by prefetch (SCAP); 0 where the machine has none. */
    int pf_window;        /* outstanding prefetches the software allows */
    int pf_net_capacity;  /* requests the network holds; 0: unbounded */
    double pf_issue_ns;   /* prefetch loop iteration */
    double pf_access_ns;  /* access loop iteration */
    double net_issue_ns;  /* network issue time per element, t_n */
    double pf_latency_ns; /* remote latency seen by a prefetch, T_L */

    /* Vector commands (VSCAP): L elements with a constant stride. */
    int vec_len;       /* L */
    int vec_window;    /* C_V */
    double vec_tv_ns;  /* t_v: issue one single prefetch (strategy (1,L)) */
    double vec_tvL_ns; /* t_v^L: issue one vector of L */
    double vec_tz_ns;  /* t_z: access one element */
    double vec_tzL_ns; /* t_z^L: access L elements */
    double vec_ts_ns;  /* t_s: loop overhead saved per vector beyond the window */
    double vec_latency_ns; /* T_L of the vector study; 0: use pf_latency_ns */
    /* Indexed gathers, strategy (1,L): the issue and access times measured
     * for an indirect gather (the index loads make them slower than a
     * constant-stride kernel's); 0: use vec_tv_ns and vec_tzL_ns. */
    double gather_tv_ns;
    double gather_tzL_ns;

    /* The network's shape, for the topology model (DMSG_SIM_TOPOLOGY=1);
     * topo_kind 0: not given. */
    int topo_kind; /* DMSG_TOPO_TORUS, DMSG_TOPO_MESH */
    int topo_dims; /* dimensions, 1 to 3 */
    int topo_ppn;  /* PEs per node (sharing its network port); 0: 1 */
} dmsg_machine;

/* Network kinds (key topo.kind): the same values as the simulator's. */
enum { DMSG_TOPO_TORUS = 1, DMSG_TOPO_MESH = 2 };

/* Loads a machine. name_or_path is an existing file, or a name looked up as
 * $DMSG_MACHINE_DIR/NAME.machine and then among the built-ins (iwarp, t3d,
 * t3e-scap, t3e-vscap, paragon). On error returns DMSG_ERR_ARG (parse error,
 * a value outside the model's bounds, unknown name) with a detail naming
 * file, line and key (dmsg_last_error), and leaves *m unchanged. */
dmsg_status dmsg_machine_load(const char *name_or_path, dmsg_machine *m);

/* DMSG_MACHINE_DIR, the directory dmsg_machine_load searches first, as an
 * owner of the settings registry (dmsg/base/env.h). */
struct dmsg_env_owner;
extern const struct dmsg_env_owner dmsg_machine_owner;

/* Parses a description held in memory; fname names it in error messages.
 * DMSG_ERR_ARG with the file, line and reason as the detail
 * (dmsg_last_error); *m is set only on success. */
dmsg_status dmsg_machine_parse(const char *text, const char *fname, dmsg_machine *m);

/* Throughput of a curve at a pattern, in MB/s; 0 when the engine cannot do
 * that pattern. Between given strides the value is interpolated linearly in
 * log(stride); strides beyond the largest given behave like it. With a cache
 * line of L words (curve.line), every stride >= L touches one line per
 * element, so strides from L up to the smallest given stride >= L take that
 * stride's value, and strides below L interpolate towards it at L. */
double dmsg_mach_curve_at(const dmsg_mach_curve *c, long pat);

/* Network throughput at an average congestion factor c >= 1 (log-log
 * interpolation between 1, 2, 4; beyond 4 it falls as 1/c). */
double dmsg_mach_net_at(const double tab[DMSG_MACH_NCONG], double c);

/* Built-in descriptions (machines_builtin.c): byte-identical copies of
 * machines/NAME.machine, checked by a unit test. */
typedef struct {
    const char *name;
    const char *text;
} dmsg_machine_builtin;
extern const dmsg_machine_builtin dmsg_machine_builtins[];
extern const int dmsg_machine_nbuiltins;

#endif
