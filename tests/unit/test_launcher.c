/* Telling launchers apart by their environment: the ones dmsg joins (PMI,
 * PMIx), the ones it cannot join (an error naming them), and one-process
 * launches (a singleton, which is what they are). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "dmsg/boot/launcher.h"

static void clear_env(void)
{
    static const char *const vars[] = {
        "PMI_FD",
        "PMI_RANK",
        "PMI_SIZE",
        "PMIX_NAMESPACE",
        "PMIX_RANK",
        "OMPI_COMM_WORLD_SIZE",
        "OMPI_COMM_WORLD_RANK",
        "SLURM_STEP_ID",
        "SLURM_STEPID",
        "SLURM_STEP_NUM_TASKS",
        "SLURM_PROCID",
        "MV2_COMM_WORLD_SIZE",
        "MV2_COMM_WORLD_RANK",
        "JSM_NAMESPACE_SIZE",
        "JSM_NAMESPACE_RANK",
        "ALPS_APP_PE",
    };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
}

TestSuite(launcher, .init = clear_env);

static dmsg_launcher detect(void)
{
    dmsg_launcher l;
    dmsg_launcher_detect(&l);
    return l;
}

Test(launcher, none)
{
    dmsg_launcher l = detect();
    cr_expect_eq(l.kind, DMSG_LAUNCHER_NONE);
    cr_expect_null(l.name);
    cr_expect_eq(l.rank, -1);
}

Test(launcher, mpich_hydra)
{
    setenv("PMI_FD", "5", 1);
    setenv("PMI_RANK", "2", 1);
    setenv("PMI_SIZE", "4", 1);
    dmsg_launcher l = detect();
    cr_expect_eq(l.kind, DMSG_LAUNCHER_PMI);
    cr_expect_str_eq(l.name, "MPICH's mpiexec");
    cr_expect_eq(l.rank, 2);
    cr_expect_eq(l.size, 4);
    cr_expect(strstr(l.pass, "-genv DMSG_TRANSPORT ofi") != NULL, "%s", l.pass);
}

Test(launcher, open_mpi_pmix)
{
    setenv("PMIX_NAMESPACE", "1234", 1);
    setenv("PMIX_RANK", "1", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
    setenv("OMPI_COMM_WORLD_RANK", "1", 1);
    dmsg_launcher l = detect();
    cr_expect_eq(l.kind, DMSG_LAUNCHER_PMIX);
    cr_expect_str_eq(l.name, "Open MPI's mpirun");
    cr_expect_eq(l.rank, 1);
    cr_expect_eq(l.size, 2);
    cr_expect(strstr(l.pass, "mpirun -x DMSG_TRANSPORT=ofi") != NULL, "%s", l.pass);
}

Test(launcher, slurm_pmix)
{
    setenv("PMIX_NAMESPACE", "slurm.pmix.7.0", 1);
    setenv("PMIX_RANK", "0", 1);
    setenv("SLURM_STEP_ID", "0", 1);
    setenv("SLURM_PROCID", "0", 1);
    setenv("SLURM_STEP_NUM_TASKS", "8", 1);
    dmsg_launcher l = detect();
    cr_expect_eq(l.kind, DMSG_LAUNCHER_PMIX);
    cr_expect_str_eq(l.name, "Slurm's srun");
    cr_expect_eq(l.size, 8);
}

Test(launcher, pmix_wins_over_its_own_variables)
{
    /* PMI_FD is MPICH's; without it, PMI_SIZE next to PMIx is no reason to fail */
    setenv("PMIX_NAMESPACE", "x", 1);
    setenv("PMIX_RANK", "0", 1);
    setenv("PMI_SIZE", "4", 1);
    cr_expect_eq(detect().kind, DMSG_LAUNCHER_PMIX);
}

Test(launcher, open_mpi_without_pmix)
{
    setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
    setenv("OMPI_COMM_WORLD_RANK", "3", 1);
    dmsg_launcher l = detect();
    cr_expect_eq(l.kind, DMSG_LAUNCHER_FOREIGN);
    cr_expect_str_eq(l.name, "Open MPI's mpirun");
    cr_expect_str_eq(l.var, "OMPI_COMM_WORLD_SIZE");
    cr_expect_eq(l.size, 4);
    cr_expect_eq(l.rank, 3);
    cr_expect_not_null(l.advice);
}

Test(launcher, srun_without_pmix)
{
    setenv("SLURM_STEP_ID", "0", 1);
    setenv("SLURM_STEP_NUM_TASKS", "2", 1);
    setenv("SLURM_PROCID", "1", 1);
    dmsg_launcher l = detect();
    cr_expect_eq(l.kind, DMSG_LAUNCHER_FOREIGN);
    cr_expect_str_eq(l.name, "Slurm's srun");
    cr_expect(strstr(l.advice, "srun --mpi=pmix") != NULL, "%s", l.advice);
    cr_expect_eq(l.rank, 1);
}

Test(launcher, pmi_without_fd)
{
    setenv("PMI_SIZE", "3", 1);
    setenv("PMI_RANK", "0", 1);
    dmsg_launcher l = detect();
    cr_expect_eq(l.kind, DMSG_LAUNCHER_FOREIGN);
    cr_expect_eq(l.size, 3);
}

Test(launcher, mvapich_and_jsrun)
{
    setenv("MV2_COMM_WORLD_SIZE", "2", 1);
    cr_expect_str_eq(detect().name, "MVAPICH's mpirun_rsh");
    unsetenv("MV2_COMM_WORLD_SIZE");
    setenv("JSM_NAMESPACE_SIZE", "2", 1);
    cr_expect_str_eq(detect().name, "IBM's jsrun");
}

Test(launcher, aprun_size_unknown_is_foreign)
{
    setenv("ALPS_APP_PE", "0", 1);
    dmsg_launcher l = detect();
    cr_expect_eq(l.kind, DMSG_LAUNCHER_FOREIGN);
    cr_expect_eq(l.size, -1);
}

Test(launcher, one_process_launch_is_a_singleton)
{
    setenv("SLURM_STEP_ID", "0", 1);
    setenv("SLURM_STEP_NUM_TASKS", "1", 1);
    setenv("SLURM_PROCID", "0", 1);
    cr_expect_eq(detect().kind, DMSG_LAUNCHER_NONE);
    clear_env();
    setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
    cr_expect_eq(detect().kind, DMSG_LAUNCHER_NONE);
}

Test(launcher, garbage_size_is_not_one)
{
    /* a size that is not a number must not pass for a one-process job */
    setenv("OMPI_COMM_WORLD_SIZE", "many", 1);
    dmsg_launcher l = detect();
    cr_expect_eq(l.kind, DMSG_LAUNCHER_FOREIGN);
    cr_expect_eq(l.size, -1);
}
