/* Helpers for end-to-end tests: run the built program, capture its output,
 * pick numbers out of its JSON. */
#ifndef TASKNET_TESTS_CLI_HELPERS_H
#define TASKNET_TESTS_CLI_HELPERS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#ifndef TASKNET_BIN
#define TASKNET_BIN "../tasknet"
#endif

static inline const char *srcdir(void)
{
    const char *s = getenv("top_srcdir");
    return s && *s ? s : "..";
}

/* Run `tasknet ARGS` (a shell fragment) with stderr merged into the returned
 * text (caller frees); *status gets the exit status. */
static inline char *run_tasknet(const char *args, int *status)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s 2>&1", srcdir(), TASKNET_BIN, args);
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += got;
        if (cap - len < 4096) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    buf[len] = '\0';
    int st = pclose(p);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return buf;
}

/* Run a shell fragment in the source folder with $TASKNET set to the built
 * program; its stdout (stderr only if the fragment redirects it) is
 * returned (caller frees) and *status gets the shell's exit status. */
static inline char *run_sh(const char *fragment, int *status)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd '%s' && TASKNET='%s' && export TASKNET && { %s ; }", srcdir(), TASKNET_BIN,
             fragment);
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += got;
        if (cap - len < 4096) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    buf[len] = '\0';
    int st = pclose(p);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return buf;
}

/* The number after the k-th (0-based) occurrence of "key": in text; NAN if absent. */
static inline double json_num(const char *text, const char *key, int k)
{
    char pat[128];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = text;
    for (int i = 0; i <= k; i++) {
        p = strstr(p, pat);
        if (!p)
            return 0.0 / 0.0;
        p += strlen(pat);
    }
    return strtod(p, NULL);
}

static inline char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    size_t got = fread(b, 1, (size_t)n, f);
    b[got] = '\0';
    fclose(f);
    return b;
}

#endif
