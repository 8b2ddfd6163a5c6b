/* The configuration loader under a fuzzer (.ci/run: AFL++ with ASan and
 * UBSan), and a plain program for any file:
 *     tests/fuzz_config FILE.xml          (- for standard input)
 *     afl-fuzz -i SEEDS -o OUT -- tests/fuzz_config @@
 * It loads the file (schema, units, ranges, cross-checks), builds and
 * checks up to 64 sweep points, and for a valid file writes the
 * configuration out and reads it back twice: the two written texts must be
 * equal (the writer and the loader agree). Errors are the right answer to
 * bad input; a crash, a sanitizer report or an abort is a bug. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "run.h"

static char *slurp_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    size_t got;
    while ((got = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n < 2)
            b = realloc(b, cap *= 2);
    }
    b[n] = '\0';
    fclose(f);
    return b;
}

static int one(const char *path)
{
    cfg c;
    cfg_errors errs;
    cfg_errors_init(&errs);
    int ok = cfg_load(&c, path, &errs) == 0;
    if (ok) {
        ok = cfg_check(&c, &errs) == 0;
        size_t np = cfg_points(&c);
        for (size_t p = 0; p < np && p < 64; p++) {
            cfg pc;
            char err[1024];
            if (cfg_point(&c, p, &pc, err, sizeof err) == 0)
                cfg_free(&pc);
        }
    }
    if (ok) {
        /* written, read back, written again: the same text */
        char a[64], b[64], err[1024];
        const char *tmp = getenv("TMPDIR");
        snprintf(a, sizeof a, "%s/fuzz-%ld-a.xml", tmp && *tmp && strlen(tmp) < 30 ? tmp : "/tmp", (long)getpid());
        snprintf(b, sizeof b, "%s/fuzz-%ld-b.xml", tmp && *tmp && strlen(tmp) < 30 ? tmp : "/tmp", (long)getpid());
        if (cfg_write_xml(&c, a, err, sizeof err) != 0) {
            fprintf(stderr, "cannot write a valid configuration: %s\n", err);
            abort();
        }
        cfg back;
        cfg_errors e2;
        cfg_errors_init(&e2);
        if (cfg_load(&back, a, &e2) != 0) {
            fprintf(stderr, "the written configuration does not read back:\n");
            for (size_t i = 0; i < e2.n; i++)
                fprintf(stderr, "%s\n", e2.msg[i]);
            abort();
        }
        if (cfg_write_xml(&back, b, err, sizeof err) != 0)
            abort();
        char *ta = slurp_file(a), *tb = slurp_file(b);
        if (!ta || !tb || strcmp(ta, tb) != 0) {
            fprintf(stderr, "written twice, the configuration differs:\n%s\n---\n%s\n", ta ? ta : "", tb ? tb : "");
            abort();
        }
        free(ta);
        free(tb);
        unlink(a);
        unlink(b);
        cfg_free(&back);
        cfg_errors_free(&e2);
    }
    cfg_free(&c);
    cfg_errors_free(&errs);
    return ok ? 0 : 1;
}

/* As the program (app/cli/cli.c), the checks ask the memory estimate
 * before they build per-node maps, so a file of 2^32 - 1 nodes is refused
 * in milliseconds, as `tasknet validate` refuses it, instead of spending
 * half a minute and 5 GB per input on maps the program never builds. */
int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "-";
    cfg_point_fits = run_point_fits;
#ifdef __AFL_LOOP
    /* AFL++ persistent mode: many inputs per process (it rewrites the file) */
    int rc = 0;
    while (__AFL_LOOP(10000))
        rc = one(path);
    return rc;
#else
    return one(path);
#endif
}
