/* The -j driver: worker processes forked from this one, each running one
 * run at a time as this process hands them out (the next run to whichever
 * worker is free); only this process writes the result folder. A worker
 * that dies loses its run, not the table: the run is handed out again. */
#include "sweep_impl.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "workload.h"

/* Worker protocol: the parent writes run ids (uint64) to the worker's
 * command pipe; the worker answers with one sweep_result per id. */

static int read_full(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n) {
        ssize_t got = read(fd, p, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        p += got;
        n -= (size_t)got;
    }
    return 0;
}

static int write_full(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t put = write(fd, p, n);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            return -1;
        p += put;
        n -= (size_t)put;
    }
    return 0;
}

/* In a worker, progress inside a run goes to the parent as a result record
 * of status SWEEP_PROGRESS (the parent shows it and waits on). */
static void worker_progress(sweep *sw, uint64_t id, const run_progress *p)
{
    static sweep_result *rec;
    static size_t size;
    if (!rec || size != sweep_result_size(sw)) {
        free(rec);
        size = sweep_result_size(sw);
        rec = tn_xcalloc(1, size);
    }
    rec->id = id;
    rec->status = SWEEP_PROGRESS;
    rec->prog = *p;
    write_full(sw->progress_fd, rec, size); /* a parent gone is noticed at the result */
}

/* A worker's pools (wl_ops.pool_*: what its runs keep for the result
 * files) go to the folder's process through out/.pool-PID, saved when the
 * worker's runs are done and taken (then removed) once it has exited; a
 * worker that dies leaves none, and the files' pass evaluates its runs
 * itself, as it does any run no pool holds. */
static void pool_path(const sweep *sw, long pid, char *buf, size_t len)
{
    snprintf(buf, len, "%s/.pool-%ld", sw->o->out, pid);
}

static void pool_take(const sweep *sw, long pid, int load)
{
    if (!sw->o->out)
        return;
    char path[CFG_PATH_MAX + 64], tmp[CFG_PATH_MAX + 72];
    pool_path(sw, pid, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (load)
        (void)wl_pools_load(path); /* none, or unreadable: the files' pass evaluates those runs */
    unlink(path);
    unlink(tmp);
}

static void worker_main(sweep *sw, int cmd_fd, int res_fd)
{
    wl_pools_reset(); /* the fork copied the parent's */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sw->progress_sink = worker_progress;
    sw->progress_fd = res_fd;
    uint64_t id;
    sweep_result *r = sweep_result_new(sw);
    while (read_full(cmd_fd, &id, sizeof id) == 0) {
        char hist[CFG_PATH_MAX + 64];
        sweep_run(sw, id, NULL, sweep_latency_path(sw, id, hist, sizeof hist), r);
        if (write_full(res_fd, r, sweep_result_size(sw)) != 0)
            break;
    }
    free(r);
    if (sw->o->out && !sweep_interrupted()) {
        char path[CFG_PATH_MAX + 64];
        pool_path(sw, (long)getpid(), path, sizeof path);
        (void)wl_pools_save(path); /* none saved: the files' pass evaluates these runs */
    }
    sweep_pcache_free(sw);
    _exit(0);
}

typedef struct worker {
    pid_t pid;
    int cmd_fd, res_fd;
    uint64_t busy_id; /* SWEEP_NO_RUN = idle */
} worker;

static int spawn(sweep *sw, worker *w)
{
    int cmd[2], res[2];
    if (pipe(cmd) != 0)
        return -1;
    if (pipe(res) != 0) {
        int e = errno;
        close(cmd[0]);
        close(cmd[1]);
        errno = e;
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(cmd[0]);
        close(cmd[1]);
        close(res[0]);
        close(res[1]);
        errno = e;
        return -1;
    }
    if (pid == 0) {
        close(cmd[1]);
        close(res[0]);
        worker_main(sw, cmd[0], res[1]);
    }
    close(cmd[0]);
    close(res[1]);
    w->pid = pid;
    w->cmd_fd = cmd[1];
    w->res_fd = res[0];
    w->busy_id = SWEEP_NO_RUN;
    return 0;
}

static void retire(const sweep *sw, worker *w)
{
    if (w->pid <= 0)
        return;
    if (w->cmd_fd >= 0)
        close(w->cmd_fd);
    close(w->res_fd);
    int st = 0;
    waitpid(w->pid, &st, 0);
    pool_take(sw, (long)w->pid, WIFEXITED(st) && WEXITSTATUS(st) == 0);
    w->pid = 0;
}

/* Hand runs out dynamically to sw->o->jobs worker processes. */
static int run_forked(sweep *sw)
{
    unsigned nw = sw->jobs;
    worker *w = tn_xcalloc(nw, sizeof *w);
    struct pollfd *pfd = tn_xcalloc(nw, sizeof *pfd);
    sweep_result *res = sweep_result_new(sw);
    int rc = 0;
    unsigned respawns = 0;
    signal(SIGPIPE, SIG_IGN);
    for (unsigned i = 0; i < nw; i++)
        if (spawn(sw, &w[i]) != 0) {
            sweep_note(sw, SWEEP_ERROR, "cannot start worker: %s", strerror(errno));
            rc = 1;
            goto out;
        }
    for (;;) {
        /* give every idle worker a run */
        for (unsigned i = 0; i < nw && rc == 0; i++) {
            if (w[i].pid <= 0 || w[i].busy_id != SWEEP_NO_RUN)
                continue;
            uint64_t id;
            if (sweep_next(sw, i, &id) != 0)
                break;
            if (write_full(w[i].cmd_fd, &id, sizeof id) == 0)
                w[i].busy_id = id;
            else
                sweep_requeue(sw, id);
        }
        unsigned busy = 0;
        for (unsigned i = 0; i < nw; i++) {
            pfd[i].fd = w[i].pid > 0 && w[i].busy_id != SWEEP_NO_RUN ? w[i].res_fd : -1;
            pfd[i].events = POLLIN;
            pfd[i].revents = 0;
            busy += pfd[i].fd >= 0;
        }
        if (!busy || sweep_interrupted())
            break;
        if (poll(pfd, nw, -1) < 0) {
            if (errno == EINTR)
                continue;
            rc = 1;
            break;
        }
        for (unsigned i = 0; i < nw; i++) {
            if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            if (read_full(w[i].res_fd, res, sweep_result_size(sw)) != 0) {
                /* the worker died: its run is lost, the run table is not */
                int st = 0;
                close(w[i].cmd_fd);
                close(w[i].res_fd);
                waitpid(w[i].pid, &st, 0);
                pool_take(sw, (long)w[i].pid, 0);
                w[i].pid = 0;
                sweep_requeue(sw, w[i].busy_id);
                sweep_worker_lost(sw, i);
                if (sweep_interrupted() || sw->giving_up)
                    continue;
                sweep_note(sw, SWEEP_WARNING, "worker %d died (%s %d) during run %llu", (int)i,
                        WIFSIGNALED(st) ? "signal" : "status",
                        WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
                        (unsigned long long)w[i].busy_id);
                /* hand its run to the next free worker, up to a point */
                if (respawns++ >= 2 * nw) {
                    sweep_note(sw, SWEEP_ERROR, "workers keep dying (%u deaths), so the cause is in the runs, "
                               "not chance: see the first message above; stopping", respawns);
                    rc = 1;
                    sw->giving_up = 1;
                } else if (spawn(sw, &w[i]) != 0) {
                    sweep_note(sw, SWEEP_ERROR, "cannot start a worker in its place: %s; stopping", strerror(errno));
                    rc = 1;
                    sw->giving_up = 1;
                }
                continue;
            }
            if (res->status == SWEEP_PROGRESS) {
                if (sw->ui && sw->ui->run_progress)
                    sw->ui->run_progress(sw->ui->ctx, res->id, &res->prog);
                continue;
            }
            w[i].busy_id = SWEEP_NO_RUN;
            if (sweep_record(sw, res) != 0)
                rc = 1;
        }
    }
out:
    /* A worker inherits the command pipes of the workers forked before it,
     * so a worker sees the end of its commands only when every later worker
     * has exited too: close every command pipe first, then wait. */
    for (unsigned i = 0; i < nw; i++) {
        if (sweep_interrupted() && w[i].pid > 0)
            kill(w[i].pid, SIGTERM);
        if (w[i].pid > 0) {
            close(w[i].cmd_fd);
            w[i].cmd_fd = -1;
        }
    }
    for (unsigned i = 0; i < nw; i++)
        retire(sw, &w[i]);
    free(w);
    free(pfd);
    free(res);
    return rc;
}


const sweep_driver sweep_fork_driver = {.name = "fork", .run = run_forked};
