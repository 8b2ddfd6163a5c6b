/* Broken invariants abort through one macro that prints file:line, the
 * condition and the values the caller formats (ROSS test_assert style).
 * Recoverable errors never come here: they return a status and a message. */
#ifndef TASKNET_LOG_H
#define TASKNET_LOG_H

#include <stdio.h>
#include <stdlib.h>

#define TN_ASSERT(cond, ...)                                                  \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "%s:%d: internal error: assertion `%s' failed: ", \
                    __FILE__, __LINE__, #cond);                               \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
            abort();                                                          \
        }                                                                     \
    } while (0)

/* TN_CHECK: an invariant on a hot path that the model's own argument
 * proves (the comment beside each check gives it), compiled only into the
 * checking build (configure --enable-checks; --enable-sanitizers implies
 * it), where the whole test suite runs with it. In the ordinary build the
 * condition is not evaluated (sizeof keeps its names used). Why: SPINet's
 * per-stage checks cost 8% of spinet-load's time although no condition of
 * theirs ever read a value it did not just compute. Everything else uses
 * TN_ASSERT, always on. */
#ifdef TN_CHECKS
#define TN_CHECK(cond, ...) TN_ASSERT(cond, __VA_ARGS__)
#else
#define TN_CHECK(cond, ...) ((void)sizeof(!(cond)))
#endif

/* Out of memory is not recoverable for a simulator: abort with the site. */
void *tn_xmalloc(size_t n);
void *tn_xcalloc(size_t n, size_t size);
void *tn_xrealloc(void *p, size_t n);
char *tn_xstrdup(const char *s);
/* Zeroed memory for a large table a model reads at random (per link, per
 * switch element): 64-byte aligned, and from 2 MiB on aligned to 2 MiB and
 * advised for transparent huge pages (Linux madvise), so that a random
 * access costs no page walk: at 65,536 ports a hop's blocks lie megabytes
 * apart, and with 4 KiB pages nearly every one missed the TLB too. Release
 * with free(). */
void *tn_xalloc_big(size_t bytes);
/* The same block, not zeroed (its pages untouched until the caller writes
 * them: a table made only when it is used costs nothing before). */
void *tn_xalloc_big_raw(size_t bytes);
/* The bytes tn_xalloc_big(bytes) zeroes, hence holds (its size rounded up
 * to its alignment): what a model's memory estimate counts for it. */
size_t tn_xalloc_big_bytes(size_t bytes);
/* A copy of s without its leading and trailing blanks (space, tab, CR, LF). */
char *tn_xstrdup_trim(const char *s);
/* Space, tab, CR or LF. */
static inline int tn_is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; }

/* The next item of a list separated by blanks or commas, from *pp: its
 * start, its length in *len, and *pp moved past it; NULL at the end. */
static inline const char *tn_list_next(const char **pp, size_t *len)
{
    const char *p = *pp;
    while (*p == ',' || tn_is_space(*p))
        p++;
    if (!*p)
        return NULL;
    const char *t = p;
    while (*p && *p != ',' && !tn_is_space(*p))
        p++;
    *pp = p;
    *len = (size_t)(p - t);
    return t;
}

/* Format into a caller buffer (snprintf that never overflows, returns -1 for
 * convenience as an error status). */
int tn_error(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* mkdir -p: create dir and its missing parents. 0, or -1 (errno set). */
int tn_mkdir_p(const char *dir);

#endif
