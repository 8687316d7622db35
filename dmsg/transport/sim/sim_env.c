/* The sim transport's settings rows. */
#include "dmsg/transport/sim/sim.h"

#define F(field) DMSG_ENV_FIELD(sim_settings, field)

static const dmsg_env_entry rows[] = {
    {"DMSG_MACHINE", DMSG_ENV_STRING, "t3d",
     "sim: machine to simulate: a built-in (iwarp, t3d, t3e-scap, t3e-vscap, paragon), a name in "
     "$DMSG_MACHINE_DIR, or a description file",
     F(machine)},
    {"DMSG_SIM_MECH", DMSG_ENV_STRING, "auto",
     "sim: non-contiguous deposits by auto (cheaper allowed), packed or chained transfer",
     F(mech)},
    {"DMSG_SIM_CONGESTION", DMSG_ENV_SECONDS, "0",
     "sim: average network congestion factor, 1 to 1024; 0 = the machine's typical value",
     F(congestion)},
    {"DMSG_SIM_FETCH", DMSG_ENV_STRING, "auto",
     "sim: fetch strategy auto, blocking (one remote read per word), pipelined (SCAP), vector "
     "(VSCAP)",
     F(fetch)},
    {"DMSG_SIM_REPORT", DMSG_ENV_BOOL, "0",
     "sim: PE 0 prints every PE's virtual time breakdown at dmsg_finalize", F(report)},
    {"DMSG_SIM_SCHED", DMSG_ENV_BOOL, "1",
     "sim: 1 = one PE process runs at a time, the least virtual clock first (deterministic, no "
     "spinning: docs/simulator.md); 0 = every PE runs freely, as before the scheduler",
     F(sched)},
    {"DMSG_SIM_TOPOLOGY", DMSG_ENV_BOOL, "0",
     "sim: 1 = each deposit routed through the machine's torus or mesh and charged the "
     "congestion on its links (docs/simulator.md, \"The topology model\"); 0 = the average "
     "congestion factor",
     F(topology)},
    {"DMSG_SIM_DROP_PES", DMSG_ENV_UINT, "16",
     "sim: under the scheduler, a job of more PEs than this writes its deposits to other PEs "
     "through the job region's file and drops its page tables of the other PEs' parts of the "
     "region after a run that touched them (page tables grow as PEs^2 otherwise: "
     "docs/simulator.md, \"How many PEs\"); 4096 = never",
     F(drop_pes)},
    {"DMSG_SIM_PWRITE", DMSG_ENV_BOOL, "1",
     "sim: 1 = a PE that drops (DMSG_SIM_DROP_PES) writes its deposits to other PEs through the "
     "job region's file (pwrite) and counts them in the job area, mapping nothing of theirs "
     "(docs/simulator.md, \"How many PEs\"); 0 = through the mapping",
     F(pwrite)},
    {"DMSG_SIM_ENGINE", DMSG_ENV_BOOL, "1",
     "sim: 1 = the file path's writes of up to 512 bytes go through the deposit engine, a "
     "thread of PE 0 that keeps the whole job region mapped and copies them there "
     "(docs/simulator.md, \"The deposit engine\"); 0 = each is a pwrite of its own",
     F(engine)},
};

const dmsg_env_table dmsg_sim_env_table = {rows, sizeof rows / sizeof rows[0], sizeof(sim_settings)};
