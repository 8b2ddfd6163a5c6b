/* The workloads' own files in a result folder (wl_ops.write_files): after
 * the runs of a sweep are recorded, each workload that writes files gets
 * the points that use it, resolved as their runs were, and the replicas
 * of each that are done. Generic: no workload is named here. */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "run.h"

int run_write_files(const cfg *base, const char *dir, const unsigned char *done, char *err, size_t errlen)
{
    const wl_ops *used[64];
    size_t nused = cfg_used_wls(base, used, 64), writers = 0;
    for (size_t i = 0; i < nused && i < 64; i++)
        writers += used[i]->write_files != NULL;
    if (!writers)
        return 0;
    size_t npoints = cfg_points(base);
    uint32_t R = base->replicas;
    cfg *pcs = tn_xcalloc(npoints ? npoints : 1, sizeof *pcs);
    unsigned char *made = tn_xcalloc(npoints ? npoints : 1, 1);
    uint64_t *reps = tn_xmalloc((npoints ? npoints : 1) * (size_t)(R ? R : 1) * sizeof *reps);
    wl_point_runs *pts = tn_xcalloc(npoints ? npoints : 1, sizeof *pts);
    run_cache rc = {0};
    int status = 0;
    for (size_t k = 0; k < nused && k < 64 && status == 0; k++) {
        const wl_ops *w = used[k];
        if (!w->write_files)
            continue;
        size_t n = 0;
        for (size_t p = 0; p < npoints && status == 0; p++) {
            size_t nrep = 0;
            for (uint32_t r = 0; r < R; r++)
                if (done[run_id(base, p, r)])
                    reps[p * R + nrep++] = r;
            if (!nrep)
                continue;
            if (!made[p]) {
                if (cfg_point(base, p, &pcs[p], err, errlen) != 0 || run_resolve(&pcs[p], &rc, NULL, err, errlen) != 0) {
                    status = -1;
                    break;
                }
                made[p] = 1;
            }
            if (cfg_wl(&pcs[p]) != w)
                continue;
            pts[n++] = (wl_point_runs){
                .point = p,
                .params = cfg_wl_params(&pcs[p]),
                .net = cfg_net(&pcs[p]),
                .net_params = cfg_net_params(&pcs[p]),
                .core = &pcs[p].net,
                .seed = pcs[p].seed,
                .replicas = reps + p * R,
                .nreplicas = nrep,
            };
        }
        if (status == 0)
            status = w->write_files(dir, pts, n, err, errlen);
    }
    for (size_t p = 0; p < npoints; p++)
        if (made[p])
            cfg_free(&pcs[p]);
    run_cache_free(&rc);
    free(pcs);
    free(made);
    free(reps);
    free(pts);
    return status;
}
