/* Input files: regular files only, standard input bounded (infile.h). */
#include "infile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m) ? "a folder" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
           : S_ISFIFO(m) ? "a pipe" : S_ISSOCK(m) ? "a socket" : "not a file";
}

FILE *tn_open_input(const char *path, const char *mode, char *why, size_t whylen)
{
    /* O_NONBLOCK: opening a FIFO without a writer returns at once (and is
     * refused below) instead of waiting for one */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        snprintf(why, whylen, "cannot read '%s': %s", path, strerror(e));
        errno = e;
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int fst = fstat(fd, &st) == 0;
        snprintf(why, whylen, "'%s' is not a regular file (%s): tasknet reads files", path,
                 fst ? kind_of(st.st_mode) : "cannot stat it");
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    FILE *f = fdopen(fd, mode);
    if (!f) {
        int e = errno;
        snprintf(why, whylen, "cannot read '%s': %s", path, strerror(e));
        close(fd);
        errno = e;
    }
    return f;
}

int tn_read_all(FILE *f, size_t max, char **text, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = tn_xmalloc(cap);
    for (;;) {
        if (cap - n < 2) {
            if (cap > max) {
                free(buf);
                return EFBIG;
            }
            cap *= 2;
            buf = tn_xrealloc(buf, cap);
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (n > max) {
            free(buf);
            return EFBIG;
        }
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno ? errno : EIO;
        free(buf);
        return e;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}
