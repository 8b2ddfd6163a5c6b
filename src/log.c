/* madvise's MADV_HUGEPAGE is Linux's, outside POSIX */
#define _DEFAULT_SOURCE
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

static void *check(void *p, size_t n)
{
    if (!p && n) {
        fprintf(stderr, "tasknet: out of memory (%zu bytes)\n", n);
        abort();
    }
    return p;
}

void *tn_xmalloc(size_t n) { return check(malloc(n ? n : 1), n); }
void *tn_xcalloc(size_t n, size_t size) { return check(calloc(n ? n : 1, size ? size : 1), n * size); }
void *tn_xrealloc(void *p, size_t n) { return check(realloc(p, n ? n : 1), n); }
#define HUGE_PAGE ((size_t)2 << 20)

size_t tn_xalloc_big_bytes(size_t bytes)
{
    size_t align = bytes >= HUGE_PAGE ? HUGE_PAGE : 64;
    return bytes ? (bytes + align - 1) / align * align : align; /* aligned_alloc: a multiple */
}

void *tn_xalloc_big_raw(size_t bytes)
{
    size_t align = bytes >= HUGE_PAGE ? HUGE_PAGE : 64;
    size_t n = tn_xalloc_big_bytes(bytes);
    void *p = check(aligned_alloc(align, n), n);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    /* before the first touch, so the faults take huge pages; a kernel
     * without them (or with them off) refuses, harmlessly */
    if (align == HUGE_PAGE)
        (void)madvise(p, n, MADV_HUGEPAGE);
#endif
    return p;
}

void *tn_xalloc_big(size_t bytes)
{
    void *p = tn_xalloc_big_raw(bytes);
    memset(p, 0, tn_xalloc_big_bytes(bytes));
    return p;
}

char *tn_xstrdup(const char *s) { return check(strdup(s ? s : ""), 1); }

char *tn_xstrdup_trim(const char *s)
{
    while (tn_is_space(*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && tn_is_space(s[n - 1]))
        n--;
    char *r = tn_xmalloc(n + 1);
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}

int tn_error(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int tn_mkdir_p(const char *dir)
{
    size_t n = strlen(dir);
    char *buf = tn_xmalloc(n + 1);
    memcpy(buf, dir, n + 1);
    int rc = 0;
    for (char *p = buf + 1; *p && rc == 0; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            rc = -1;
        *p = '/';
    }
    if (rc == 0 && mkdir(buf, 0777) != 0 && errno != EEXIST)
        rc = -1;
    int e = errno;
    free(buf);
    errno = e;
    return rc;
}
