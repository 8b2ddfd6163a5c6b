/* The MPI driver of sweeps: `mpirun -np P tasknet run CONFIG --out DIR`.
 * Rank 0 is the sweep of a single process (selection, resume, the files)
 * except that it simulates nothing: it hands one run id at a time to
 * whichever rank asks and records what comes back, so it stays the only
 * writer of DIR. The other ranks simulate, writing a run's latency
 * histogram to a file of their own and sending its bytes with the metrics.
 * Built only when ./configure finds MPI (TASKNET_MPI). */
#include "sweep_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "log.h"

enum {
    TAG_RESULT = 1, /* worker -> 0: a sweep_result (id SWEEP_NO_RUN: first request) */
    TAG_HIST = 2,   /* worker -> 0: after each result, its latency histogram (maybe empty) */
    TAG_WORK = 3,   /* 0 -> worker: a run id, or SWEEP_NO_RUN = stop */
};

/* How many processes the launcher started (Open MPI's mpirun, a PMI
 * launcher such as MPICH's mpiexec, a PMIx one such as srun --mpi=pmix):
 * 0 = not launched by one, -1 = launched but the count is not in the
 * environment. */
static long launched_size(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return strtol(v, NULL, 10);
    }
    return getenv("PMIX_RANK") ? -1 : 0;
}

int sweep_mpi_init(int *rank, int *size, char *err, size_t errlen)
{
    *rank = 0;
    *size = 1;
    int flag = 0;
    MPI_Initialized(&flag);
    if (!flag) {
        long n = launched_size();
        if (n == 0 || n == 1)
            return 0; /* a plain process, or mpirun -np 1: no MPI at all */
        if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
            return tn_error(err, errlen, "MPI_Init failed");
    }
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    return 0;
}

void sweep_mpi_finalize(void)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Finalize();
}

/* Receive the next result from any worker without spinning rank 0's core
 * (the workers may share it): poll, sleeping up to 1 ms between tries. */
static void recv_result(const sweep *sw, sweep_result *r, MPI_Status *st)
{
    MPI_Request req;
    MPI_Irecv(r, (int)sweep_result_size(sw), MPI_BYTE, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &req);
    long nap_ns = 20000;
    for (;;) {
        int done = 0;
        MPI_Test(&req, &done, st);
        if (done)
            return;
        struct timespec ts = {0, nap_ns};
        nanosleep(&ts, NULL);
        if (nap_ns < 1000000)
            nap_ns *= 2;
    }
}

/* path <- bytes, atomically (tmp + rename). 0 or -1 + errno. */
static int write_file(const char *path, const char *bytes, size_t len)
{
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return -1;
    int bad = fwrite(bytes, 1, len, f) != len;
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

static void send_work(int rank, uint64_t id)
{
    MPI_Send(&id, 1, MPI_UINT64_T, rank, TAG_WORK, MPI_COMM_WORLD);
}

static int mpi_master(sweep *sw)
{
    int size = 1, rc = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int active = size - 1;
    sweep_result *res = sweep_result_new(sw);
    while (active > 0) {
        sweep_result *r = res;
        MPI_Status st;
        recv_result(sw, r, &st);
        int src = st.MPI_SOURCE;
        if (r->id != SWEEP_NO_RUN) {
            int n = 0;
            MPI_Probe(src, TAG_HIST, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_BYTE, &n);
            char *hist = tn_xmalloc(n > 0 ? (size_t)n : 1);
            MPI_Recv(hist, n, MPI_BYTE, src, TAG_HIST, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            char path[4096];
            /* the histogram is in place before the run's row, as with -j */
            if (r->status == 0 && n > 0 && sweep_latency_path(sw, r->id, path, sizeof path) &&
                write_file(path, hist, (size_t)n) != 0) {
                r->status = 1;
                tn_error(r->err, sizeof r->err, "cannot write %s: %s", path, strerror(errno));
            }
            free(hist);
            if (sweep_record(sw, r) != 0)
                rc = 1;
        }
        uint64_t id = SWEEP_NO_RUN;
        /* after a failed run, finish what is in flight and hand out nothing more */
        if (rc != 0 || sweep_next(sw, (unsigned)src, &id) != 0) {
            id = SWEEP_NO_RUN;
            active--;
        }
        send_work(src, id);
    }
    free(res);
    return rc;
}

void sweep_mpi_stop_workers(const sweep *sw)
{
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    sweep_result *r = sweep_result_new(sw);
    for (int i = 1; i < size; i++) {
        MPI_Status st;
        recv_result(sw, r, &st); /* each worker's first request carries no result */
        send_work(st.MPI_SOURCE, SWEEP_NO_RUN);
    }
    free(r);
}

/* The whole file at path (caller frees), or NULL + errno. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (cap - *len < 4096) {
            cap = cap ? 2 * cap : 65536;
            buf = tn_xrealloc(buf, cap);
        }
        size_t got = fread(buf + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    return buf;
}

int sweep_mpi_worker(sweep *sw)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* with --out, histograms go to a folder of this rank, then to rank 0 */
    char dir[4096] = "", hist[4200];
    int want_hist = sweep_latency_path(sw, 0, hist, sizeof hist) != NULL, dir_errno = 0;
    if (want_hist) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/tasknet-rank%d-XXXXXX", tmp && *tmp ? tmp : "/tmp", rank);
        if (!mkdtemp(dir)) {
            dir_errno = errno;
            dir[0] = '\0';
        }
        snprintf(hist, sizeof hist, "%s/run.csv", dir);
    }
    size_t rsize = sweep_result_size(sw);
    sweep_result *r = sweep_result_new(sw);
    MPI_Send(r, (int)rsize, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
    for (;;) {
        uint64_t id;
        MPI_Recv(&id, 1, MPI_UINT64_T, 0, TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (id == SWEEP_NO_RUN)
            break;
        char *bytes = NULL;
        size_t len = 0;
        if (want_hist && !dir[0]) {
            memset(r, 0, rsize);
            r->id = id;
            r->status = 1;
            tn_error(r->err, sizeof r->err, "MPI rank %d: cannot create a temporary folder: %s",
                     rank, strerror(dir_errno));
        } else if (sweep_run(sw, id, NULL, want_hist ? hist : NULL, r) == 0 && want_hist) {
            bytes = slurp(hist, &len);
            if (!bytes) {
                r->status = 1;
                tn_error(r->err, sizeof r->err, "MPI rank %d: cannot read %s: %s", rank, hist,
                         strerror(errno));
            }
            unlink(hist);
        }
        MPI_Send(r, (int)rsize, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
        MPI_Send(bytes ? bytes : "", (int)len, MPI_BYTE, 0, TAG_HIST, MPI_COMM_WORLD);
        free(bytes);
    }
    if (dir[0])
        rmdir(dir);
    free(r);
    return 0;
}

const sweep_driver sweep_mpi_driver = {.name = "mpi", .run = mpi_master};
