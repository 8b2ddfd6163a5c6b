/* InfiniBand import: an installation's topology (ibnetdiscover's output)
 * and its forwarding tables (ibdiagnet's fdbs file, or an LFT dump of
 * OpenSM or ibroute/dump_lfts.sh) written as the graph fabric's DOT file
 * (ORCS's format, seed 001, read by topo_graph.c with routing="file"), as
 * ORCS's get_network_graph script does. Contract in topo.h.
 *
 * IBNETDISCOVER (infiniband-diags' ibnetdiscover(8), "topology file"):
 * a block per node: a header
 *     Switch  24 "S-005442ba00003080"   # "ISR9024 Voltaire" base port 0 lid 6 lmc 0
 *     Ca      2 "H-0008f10403960984"    # "MT23108 InfiniHost Mellanox Technologies"
 * (number of ports, node GUID with the type's prefix, the NodeDescription;
 * a switch's LID is its port 0's), then a line per connected port:
 *     [22]    "H-0008f10403961354"[1](8f10403961355)  # "MT23108 ..." lid 4 4xSDR
 *     [1](8f10403960985)  "S-0008f10400410015"[6]     # lid 16 lmc 1 "SW-6IB4 Voltaire" lid 3 4xSDR
 * (local port, the peer's name and port, on a CA line the port GUID; after
 * "#" on a switch line the peer's description and LID, on a CA line the
 * port's own LID and LMC, then the peer's description and LID). Lines
 * vendid=, devid=, sysimgguid=, switchguid=, caguid=, comments (#),
 * "Chassis ..." and "Non-Chassis Nodes" (grouping, -g) are skipped; a
 * "[ext N]" after a port number is skipped. Anything else is an error
 * naming the file and line. A link is listed from both ends when both
 * nodes have a block; the two must agree. Routers (Rt) are refused.
 *
 * FDBS, either form (both name switches by node GUID):
 *   ibdiagnet's ibdiagnet.fdbs / ibdiagnet2.fdbs and OpenSM's osm.fdbs
 *   (osm_ucast_mgr_dump_ucast_routes):
 *     osm_ucast_mgr_dump_ucast_routes: Switch 0x0008f10400410015
 *     LID    : Port : Hops : Optimal
 *     0x0004 : 001  : 01   : yes
 *     0x0005 : UNREACHABLE
 *   linear forwarding table dumps (OpenSM's opensm-lfts.dump, ibroute,
 *   dump_lfts.sh):
 *     Unicast lids [0x0-0x10] of switch Lid 3 guid 0x0008f10400410015 ('SW-6IB4 Voltaire'):
 *       Lid  Out   Destination
 *            Port     Info
 *     0x0004 001 : (Channel Adapter portguid 0x0008f10403961355: 'MT23108 ...')
 *     0x0010 006 # Channel Adapter portguid 0x...: '...'
 *     17 valid lids dumped
 * An entry is the destination LID and the output port (decimal). Entries
 * whose LID is no host's (the switches' own LIDs, LIDs ibnetdiscover did
 * not see) are ignored; an entry routing a host's LID to port 0, to a port
 * without a link or (at the host's own switch) to another port than the
 * host's is an error naming the file and line, as is a switch of
 * IBNETDISCOVER without a table.
 *
 * The graph written:
 *   hosts   every connected port of a channel adapter (CA) whose peer is a
 *           switch: its own LID is the destination a forwarding table
 *           routes. Named after the CA, "H-<guid>" as ibnetdiscover writes
 *           it (ORCS's rule: a name starting with H is a host), with
 *           "-P<port>" appended when the CA has several connected ports.
 *           With LMC > 0 a port answers to 2^LMC LIDs (base + 0 ..
 *           base + 2^LMC - 1), each with its own forwarding entries: the
 *           graph gets lmc = B, the largest LMC, and path v of a
 *           destination with LMC l is its LID base + (v mod 2^l) (the
 *           graph fabric's rule: a message takes path v from its salt's
 *           binary choices, so a host's LIDs are used evenly, as MPI
 *           libraries spread their connections over them). A route that
 *           is the same on every path is written bare, the others NAME@v.
 *           Numbered by switch (file order), then switch port, so the hosts
 *           of one leaf are consecutive.
 *   switches "S-<guid>", in the order of their Switch lines (then those
 *           only named on others' lines, in the order first named).
 *   links   each switch's connected ports in increasing IB port number are
 *           its ports 0, 1, ... (tport and hport on every edge; a comment
 *           line names the IB ports).
 *   routes  the comment of edge S -> X lists the hosts whose LID S's table
 *           sends out of that port; when S's table has an entry for every
 *           host not attached to S, the port carrying the most of them
 *           (the lowest on a tie) is written "*" (ORCS's wildcard) instead.
 * Node attributes lid, lmc (when > 0) and desc keep the LID, LMC and
 * NodeDescription.
 * Per-link width and speed are not written: the graph fabric runs every
 * link at network.bandwidth. Memory: S x N x 2 bytes of table. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "topo.h"

#define IB_NONE UINT16_MAX
#define IB_MAX_LID 0xBFFF /* unicast LIDs are 0x0001 to 0xBFFF (multicast above) */

typedef struct iblink {
    uint32_t port;  /* local IB port */
    uint32_t peer;  /* node index */
    uint32_t pport; /* peer's IB port */
    uint32_t lid;   /* CA node: this port's own LID (0: not given) */
    uint32_t lmc;
    uint32_t plid;  /* the peer's LID as this line gives it (0: not given) */
    long line;
} iblink;

typedef struct ibnode {
    char *name;     /* "S-..." or "H-..." as written */
    char type;      /* 'S' or 'H' */
    uint64_t guid;
    char *desc;
    uint32_t nports; /* from the header (0: only named by others) */
    uint32_t lid;    /* switch: port 0's LID */
    long line;       /* header line, or first mention */
    int has_block;
    iblink *l;
    size_t nl, cap;
    /* derived */
    uint32_t sw;      /* switch id */
    uint32_t nconn;   /* CA: connected ports */
} ibnode;

typedef struct ibhost {
    uint32_t ca, caport; /* node and IB port */
    uint32_t sw, dport;  /* switch id and its dense port */
    uint32_t lid, lmc;
    char *name;
} ibhost;

typedef struct ibfab {
    const char *netpath, *fdbpath;
    ibnode *n;
    size_t nn, ncap;
    uint32_t *hash; /* open addressing over names: node index + 1 */
    size_t hcap;
    /* switches and hosts */
    uint32_t *swnode; /* [S] node of each switch */
    uint32_t S, N;
    ibhost *h;
    uint16_t **dense; /* [S] IB port -> dense port (IB_NONE: no link) */
    uint32_t *radix;  /* [S] connected ports */
    uint32_t **ibport; /* [S][radix] dense -> IB port */
    uint32_t *hostlid_map; /* sorted LIDs -> host, for lookup */
    uint32_t B;       /* the largest LMC: 2^B paths */
    uint32_t nlid;    /* hosts' LIDs (with their LMC's) */
    uint16_t *tab;    /* [2^B * S * N] dense port toward each host on each path */
    long *tabline;    /* [S] line of the switch's table (0: none) */
    char *err;
    size_t errlen;
} ibfab;

static int ferr(ibfab *f, const char *path, long line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int ferr(ibfab *f, const char *path, long line, const char *fmt, ...)
{
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line > 0)
        snprintf(f->err, f->errlen, "%s:%ld: %s", path, line, msg);
    else
        snprintf(f->err, f->errlen, "%s: %s", path, msg);
    return -1;
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
    return h;
}

static void rehash(ibfab *f)
{
    free(f->hash);
    f->hcap = f->hcap ? f->hcap * 2 : 64;
    f->hash = tn_xcalloc(f->hcap, sizeof *f->hash);
    for (size_t i = 0; i < f->nn; i++) {
        size_t k = hash_str(f->n[i].name) & (f->hcap - 1);
        while (f->hash[k])
            k = (k + 1) & (f->hcap - 1);
        f->hash[k] = (uint32_t)i + 1;
    }
}

/* The node named `name` (creating it, with its first mention at `line`). */
static uint32_t node_of(ibfab *f, const char *name, long line)
{
    if (f->nn * 2 >= f->hcap)
        rehash(f);
    size_t k = hash_str(name) & (f->hcap - 1);
    while (f->hash[k]) {
        if (strcmp(f->n[f->hash[k] - 1].name, name) == 0)
            return f->hash[k] - 1;
        k = (k + 1) & (f->hcap - 1);
    }
    if (f->nn == f->ncap) {
        f->ncap = f->ncap ? f->ncap * 2 : 64;
        f->n = tn_xrealloc(f->n, f->ncap * sizeof *f->n);
    }
    ibnode *n = &f->n[f->nn];
    memset(n, 0, sizeof *n);
    n->name = tn_xstrdup(name);
    n->type = name[0];
    n->guid = strtoull(name + 2, NULL, 16);
    n->line = line;
    f->hash[k] = (uint32_t)f->nn + 1;
    return (uint32_t)f->nn++;
}

/* ---- small scanners over one line ---- */

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* A double-quoted string at p: copied to buf, returns the character after
 * the closing quote, or NULL. */
static const char *quoted(const char *p, char *buf, size_t len)
{
    if (*p != '"')
        return NULL;
    p++;
    size_t k = 0;
    while (*p && *p != '"') {
        if (k + 1 >= len) {
            buf[0] = '\0';
            return NULL; /* longer than the buffer: refused, not clipped (two names would merge) */
        }
        buf[k++] = *p;
        p++;
    }
    buf[k] = '\0';
    return *p == '"' ? p + 1 : NULL;
}

/* "[N]" at p: its number, returns the character after ']' or NULL. */
static const char *bracket_num(const char *p, uint32_t *v)
{
    if (*p != '[' || !isdigit((unsigned char)p[1]))
        return NULL;
    char *e;
    errno = 0;
    unsigned long x = strtoul(p + 1, &e, 10);
    if (*e != ']' || errno || x > 65535)
        return NULL;
    *v = (uint32_t)x;
    return e + 1;
}

/* Skips "(hex)" and "[ext N]"-like groups. */
static const char *skip_groups(const char *p)
{
    for (;;) {
        p = skip_ws(p);
        char close = *p == '(' ? ')' : *p == '[' ? ']' : 0;
        if (!close)
            return p;
        const char *e = strchr(p, close);
        if (!e)
            return p;
        p = e + 1;
    }
}

/* The number after the word "lid" in [p, end) (end NULL: the string's end),
 * 0 when absent; *lmc the number after "lmc" when lmc is not NULL. */
static uint32_t word_num(const char *p, const char *end, const char *word)
{
    size_t wl = strlen(word);
    while (*p && (!end || p < end)) {
        p = skip_ws(p);
        const char *t = p;
        while (*p && *p != ' ' && *p != '\t' && (!end || p < end))
            p++;
        if ((size_t)(p - t) == wl && strncmp(t, word, wl) == 0) {
            p = skip_ws(p);
            if (isdigit((unsigned char)*p)) {
                errno = 0;
                unsigned long v = strtoul(p, NULL, 10);
                return errno || v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; /* out of range: refused by the caller */
            }
        }
    }
    return 0;
}

/* "S-", "H-" or "R-" and a GUID: 1 to 16 hex digits (64 bits; more would
 * saturate strtoull and merge distinct GUIDs). */
static int valid_name(const char *s)
{
    if ((s[0] != 'S' && s[0] != 'H' && s[0] != 'R') || s[1] != '-' || !isxdigit((unsigned char)s[2]))
        return 0;
    for (const char *p = s + 2; *p; p++)
        if (!isxdigit((unsigned char)*p) || p - (s + 2) >= 16)
            return 0;
    return 1;
}

static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
}

static int skippable(const char *p)
{
    p = skip_ws(p);
    if (!*p || *p == '#')
        return 1;
    if (strncmp(p, "Chassis", 7) == 0 || strncmp(p, "Non-Chassis", 11) == 0)
        return 1;
    /* key=value lines: vendid=, devid=, sysimgguid=, switchguid=, caguid=, rtguid= */
    const char *q = p;
    while (isalnum((unsigned char)*q) || *q == '_')
        q++;
    return q > p && *q == '=';
}

static void add_link(ibnode *n, iblink l)
{
    if (n->nl == n->cap) {
        n->cap = n->cap ? n->cap * 2 : 8;
        n->l = tn_xrealloc(n->l, n->cap * sizeof *n->l);
    }
    n->l[n->nl++] = l;
}

static iblink *link_at(ibnode *n, uint32_t port)
{
    for (size_t i = 0; i < n->nl; i++)
        if (n->l[i].port == port)
            return &n->l[i];
    return NULL;
}

/* ---- ibnetdiscover ---- */

static int read_net(ibfab *f)
{
    const char *path = f->netpath;
    FILE *in = fopen(path, "r");
    if (!in)
        return ferr(f, path, 0, "%s", strerror(errno));
    char *buf = NULL;
    size_t cap = 0;
    long line = 0;
    int rc = 0;
    uint32_t cur = UINT32_MAX;
    char name[256], desc[256];
    while (rc == 0 && getline(&buf, &cap, in) >= 0) {
        line++;
        chomp(buf);
        if (skippable(buf))
            continue;
        const char *p = skip_ws(buf);
        int is_sw = strncmp(p, "Switch", 6) == 0 && (p[6] == ' ' || p[6] == '\t');
        int is_ca = strncmp(p, "Ca", 2) == 0 && (p[2] == ' ' || p[2] == '\t');
        int is_rt = strncmp(p, "Rt", 2) == 0 && (p[2] == ' ' || p[2] == '\t');
        if (is_rt) {
            rc = ferr(f, path, line, "a router (Rt): routers are not modelled");
            break;
        }
        if (is_sw || is_ca) {
            p = skip_ws(p + (is_sw ? 6 : 2));
            char *e;
            unsigned long np = strtoul(p, &e, 10);
            if (e == p || np < 1 || np > 65535) {
                rc = ferr(f, path, line, "expected the number of ports after \"%s\"", is_sw ? "Switch" : "Ca");
                break;
            }
            p = quoted(skip_ws(e), name, sizeof name);
            if (!p || !valid_name(name) || name[0] != (is_sw ? 'S' : 'H')) {
                rc = ferr(f, path, line, "expected the node's quoted name (\"%s-<GUID>\", the GUID 1 to 16 hex digits)",
                          is_sw ? "S" : "H");
                break;
            }
            cur = node_of(f, name, line);
            ibnode *n = &f->n[cur];
            if (n->has_block) {
                rc = ferr(f, path, line, "%s is described twice (first at line %ld)", name, n->line);
                break;
            }
            n->has_block = 1;
            n->line = line;
            n->nports = (uint32_t)np;
            const char *h = strchr(p, '#');
            if (h) {
                const char *q = quoted(skip_ws(h + 1), desc, sizeof desc);
                if (q) {
                    free(n->desc);
                    n->desc = tn_xstrdup(desc);
                    if (is_sw)
                        n->lid = word_num(q, NULL, "lid");
                }
            }
            if (is_sw && n->lid > IB_MAX_LID) {
                rc = ferr(f, path, line, "switch %s: LID %u is not a unicast LID (1 to 0x%x)", name, n->lid,
                          IB_MAX_LID);
                break;
            }
            if (is_sw && n->lid == 0) {
                rc = ferr(f, path, line, "switch %s: expected \"# \\\"description\\\" base port 0 lid L\" (its LID)",
                          name);
                break;
            }
            continue;
        }
        if (*p == '[') {
            if (cur == UINT32_MAX) {
                rc = ferr(f, path, line, "a port line before any Switch or Ca line");
                break;
            }
            ibnode *n = &f->n[cur];
            uint32_t port, pport;
            const char *q = bracket_num(p, &port);
            if (!q || port < 1 || port > n->nports) {
                rc = ferr(f, path, line, "expected a port number 1..%u of %s in brackets", n->nports, n->name);
                break;
            }
            q = quoted(skip_groups(q), name, sizeof name);
            if (!q || !valid_name(name)) {
                rc = ferr(f, path, line, "expected the peer's quoted name (\"S-<GUID>\" or \"H-<GUID>\")");
                break;
            }
            if (name[0] == 'R') {
                rc = ferr(f, path, line, "%s is a router: routers are not modelled", name);
                break;
            }
            q = bracket_num(q, &pport);
            if (!q || pport < 1) {
                rc = ferr(f, path, line, "expected the peer's port number in brackets after %s", name);
                break;
            }
            if (link_at(n, port)) {
                rc = ferr(f, path, line, "port %u of %s is listed twice", port, n->name);
                break;
            }
            iblink l = {.port = port, .pport = pport, .line = line};
            const char *h = strchr(q, '#');
            char pdesc[256] = "";
            if (h) {
                const char *d = strchr(h, '"');
                const char *after = d ? quoted(d, pdesc, sizeof pdesc) : NULL;
                if (n->type == 'H') {
                    l.lid = word_num(h + 1, d, "lid");
                    l.lmc = word_num(h + 1, d, "lmc");
                }
                if (after)
                    l.plid = word_num(after, NULL, "lid");
            }
            if (n->type == 'H' && l.lmc > 7) {
                rc = ferr(f, path, line, "lmc %u: at most 7", l.lmc);
                break;
            }
            if (l.lid > IB_MAX_LID || l.plid > IB_MAX_LID) {
                rc = ferr(f, path, line, "LID %u is not a unicast LID (1 to 0x%x)", l.lid > IB_MAX_LID ? l.lid : l.plid,
                          IB_MAX_LID);
                break;
            }
            uint32_t peer = node_of(f, name, line);
            n = &f->n[cur]; /* node_of may move the array */
            if (peer == cur) {
                rc = ferr(f, path, line, "port %u of %s leads to itself", port, n->name);
                break;
            }
            if (pdesc[0] && !f->n[peer].desc)
                f->n[peer].desc = tn_xstrdup(pdesc);
            if (f->n[peer].type == 'S' && !f->n[peer].has_block && l.plid && !f->n[peer].lid)
                f->n[peer].lid = l.plid;
            l.peer = peer;
            add_link(n, l);
            continue;
        }
        rc = ferr(f, path, line,
                  "expected a node line (Switch N \"S-<GUID>\" ..., Ca N \"H-<GUID>\" ...), a port line ([N] "
                  "\"peer\"[M] ...) or a vendid=/devid=/...guid= line");
    }
    free(buf);
    if (rc == 0 && ferror(in))
        rc = ferr(f, path, 0, "read error");
    fclose(in);
    if (rc == 0 && f->nn == 0)
        rc = ferr(f, path, 0, "no Switch or Ca line: not an ibnetdiscover topology file");
    return rc;
}

/* Both ends of every link agree; links known from one end only are added
 * to the other; each node's links sorted by port. */
static int cmp_link(const void *a, const void *b)
{
    const iblink *x = a, *y = b;
    return x->port < y->port ? -1 : x->port > y->port;
}

static int check_links(ibfab *f)
{
    const char *path = f->netpath;
    for (size_t i = 0; i < f->nn; i++) {
        for (size_t k = 0; k < f->n[i].nl; k++) {
            iblink l = f->n[i].l[k];
            ibnode *b = &f->n[l.peer];
            if (f->n[i].type == 'H' && b->type == 'H')
                return ferr(f, path, l.line, "%s is linked to %s: a channel adapter links to a switch",
                            f->n[i].name, b->name);
            if (b->has_block && l.pport > b->nports)
                return ferr(f, path, l.line, "%s has %u ports, not a port %u", b->name, b->nports, l.pport);
            iblink *r = link_at(b, l.pport);
            if (r) {
                if (r->peer != i || r->pport != l.port)
                    return ferr(f, path, r->line > l.line ? r->line : l.line,
                                "the link %s[%u] - %s[%u] (line %ld) and %s[%u] - %s[%u] (line %ld) disagree",
                                f->n[i].name, l.port, b->name, l.pport, l.line, b->name, r->port,
                                f->n[r->peer].name, r->pport, r->line);
            } else {
                iblink back = {.port = l.pport, .peer = (uint32_t)i, .pport = l.port, .line = l.line};
                if (b->type == 'H')
                    back.lid = l.plid;
                add_link(b, back);
            }
        }
    }
    /* a node without links (a switch block with no port line) has no
     * array at all: qsort's pointer must not be NULL, even for 0 items */
    for (size_t i = 0; i < f->nn; i++)
        if (f->n[i].nl > 1)
            qsort(f->n[i].l, f->n[i].nl, sizeof *f->n[i].l, cmp_link);
    return 0;
}

typedef struct lident {
    uint32_t lid, host, off; /* off: the LID is the host's base + off (LMC) */
} lident;

static int cmp_lid(const void *a, const void *b)
{
    const lident *x = a, *y = b;
    return x->lid < y->lid ? -1 : x->lid > y->lid;
}

typedef struct swkey {
    int block; /* 0: has a block */
    long line;
    uint32_t node;
} swkey;

static int cmp_swkey(const void *a, const void *b)
{
    const swkey *x = a, *y = b;
    if (x->block != y->block)
        return x->block - y->block;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

static const ibfab *guid_fab; /* cmp_guid's (qsort has no context) */

static int cmp_guid(const void *a, const void *b)
{
    uint64_t x = guid_fab->n[*(const uint32_t *)a].guid, y = guid_fab->n[*(const uint32_t *)b].guid;
    return x < y ? -1 : x > y;
}

/* Switches, their dense ports, the hosts. */
static int build(ibfab *f, lident **lids_out)
{
    const char *path = f->netpath;
    f->S = 0;
    for (size_t i = 0; i < f->nn; i++)
        if (f->n[i].type == 'S')
            f->S++;
    if (f->S == 0)
        return ferr(f, path, 0, "no switch");
    f->swnode = tn_xcalloc(f->S, sizeof *f->swnode);
    /* switches: those with a block in the order of their Switch lines, then those only named */
    swkey *keys = tn_xcalloc(f->S, sizeof *keys);
    uint32_t k0 = 0;
    for (size_t i = 0; i < f->nn; i++)
        if (f->n[i].type == 'S')
            keys[k0++] = (swkey){.block = !f->n[i].has_block, .line = f->n[i].line, .node = (uint32_t)i};
    qsort(keys, f->S, sizeof *keys, cmp_swkey);
    for (uint32_t s = 0; s < f->S; s++)
        f->n[keys[s].node].sw = s;
    /* a forwarding table names its switch by GUID: two names of one GUID
     * ("S-0008f1..." and "S-8f1...") would be one switch there */
    uint32_t *byg = tn_xmalloc(f->S * sizeof *byg);
    for (uint32_t s = 0; s < f->S; s++)
        byg[s] = keys[s].node;
    free(keys);
    guid_fab = f;
    qsort(byg, f->S, sizeof *byg, cmp_guid);
    for (uint32_t s = 1; s < f->S; s++)
        if (f->n[byg[s]].guid == f->n[byg[s - 1]].guid) {
            const ibnode *x = &f->n[byg[s - 1]], *y = &f->n[byg[s]];
            const ibnode *later = x->line > y->line ? x : y, *earlier = later == x ? y : x;
            int rc = ferr(f, path, later->line, "%s has the GUID of %s (line %ld): one switch under two names",
                          later->name, earlier->name, earlier->line);
            free(byg);
            return rc;
        }
    free(byg);
    f->dense = tn_xcalloc(f->S, sizeof *f->dense);
    f->radix = tn_xcalloc(f->S, sizeof *f->radix);
    f->ibport = tn_xcalloc(f->S, sizeof *f->ibport);
    size_t hcap = 0;
    for (size_t i = 0; i < f->nn; i++) {
        ibnode *n = &f->n[i];
        if (n->type == 'H')
            n->nconn = (uint32_t)n->nl;
        if (n->type != 'S')
            continue;
        f->swnode[n->sw] = (uint32_t)i;
        uint32_t maxp = n->nports;
        for (size_t k = 0; k < n->nl; k++)
            if (n->l[k].port > maxp)
                maxp = n->l[k].port;
        n->nports = maxp;
        if (n->nl > 4095)
            return ferr(f, path, n->line, "switch %s has %zu links, more than the file format's 4095", n->name,
                        n->nl);
        f->dense[n->sw] = tn_xmalloc(((size_t)maxp + 1) * sizeof **f->dense);
        for (uint32_t p = 0; p <= maxp; p++)
            f->dense[n->sw][p] = IB_NONE;
        f->ibport[n->sw] = tn_xcalloc(n->nl + 1, sizeof **f->ibport);
        f->radix[n->sw] = (uint32_t)n->nl;
        for (size_t k = 0; k < n->nl; k++) {
            f->dense[n->sw][n->l[k].port] = (uint16_t)k;
            f->ibport[n->sw][k] = n->l[k].port;
            if (f->n[n->l[k].peer].type == 'H')
                hcap++;
        }
        if (n->lid == 0)
            return ferr(f, path, n->line, "switch %s: its LID is not given", n->name);
    }
    f->h = tn_xcalloc(hcap + 1, sizeof *f->h);
    f->N = 0;
    for (uint32_t s = 0; s < f->S; s++) {
        ibnode *n = &f->n[f->swnode[s]];
        for (size_t k = 0; k < n->nl; k++) {
            ibnode *ca = &f->n[n->l[k].peer];
            if (ca->type != 'H')
                continue;
            iblink *cl = link_at(ca, n->l[k].pport);
            TN_ASSERT(cl, "import-ib: link %s[%u] has no reverse", n->name, n->l[k].port);
            uint32_t lid = cl->lid ? cl->lid : n->l[k].plid;
            if (cl->lid && n->l[k].plid && cl->lid != n->l[k].plid)
                return ferr(f, path, n->l[k].line,
                            "%s port %u: LID %u here, LID %u on line %ld", ca->name, cl->port, n->l[k].plid, cl->lid,
                            cl->line);
            if (lid == 0)
                return ferr(f, path, n->l[k].line,
                            "%s port %u has no LID (\"lid L\" after the description; LID 0: the subnet manager has "
                            "not configured it)",
                            ca->name, cl->port);
            ibhost *h = &f->h[f->N++];
            h->ca = n->l[k].peer;
            h->caport = cl->port;
            h->sw = s;
            h->dport = (uint32_t)k;
            h->lid = lid;
            h->lmc = cl->lmc;
            char nm[300];
            if (ca->nconn > 1)
                snprintf(nm, sizeof nm, "%s-P%u", ca->name, cl->port);
            else
                snprintf(nm, sizeof nm, "%s", ca->name);
            h->name = tn_xstrdup(nm);
        }
    }
    if (f->N == 0)
        return ferr(f, path, 0, "no channel adapter linked to a switch: no host");
    /* LIDs: every host's 2^LMC (unique) */
    size_t nl = 0;
    f->B = 0;
    for (uint32_t i = 0; i < f->N; i++) {
        nl += (size_t)1 << f->h[i].lmc;
        if (f->h[i].lmc > f->B)
            f->B = f->h[i].lmc;
    }
    lident *lids = tn_xcalloc(nl + 1, sizeof *lids);
    nl = 0;
    for (uint32_t i = 0; i < f->N; i++)
        for (uint32_t o = 0; o < (1u << f->h[i].lmc); o++)
            lids[nl++] = (lident){.lid = f->h[i].lid + o, .host = i, .off = o};
    f->nlid = (uint32_t)nl;
    qsort(lids, nl, sizeof *lids, cmp_lid);
    for (size_t i = 1; i < nl; i++)
        if (lids[i].lid == lids[i - 1].lid) {
            int rc = ferr(f, path, f->n[f->h[lids[i].host].ca].line, "%s and %s both have LID %u",
                          f->h[lids[i - 1].host].name, f->h[lids[i].host].name, lids[i].lid);
            free(lids);
            return rc;
        }
    *lids_out = lids;
    return 0;
}

/* The index in lids of LID lid, or UINT32_MAX. */
static uint32_t host_of_lid(const lident *lids, uint32_t n, uint32_t lid)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (lids[mid].lid < lid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && lids[lo].lid == lid ? lo : UINT32_MAX;
}

/* ---- forwarding tables ---- */

static int read_fdbs(ibfab *f, const lident *lids, uint64_t *ignored)
{
    const char *path = f->fdbpath;
    FILE *in = fopen(path, "r");
    if (!in)
        return ferr(f, path, 0, "%s", strerror(errno));
    size_t cells = (size_t)f->S * f->N << f->B;
    f->tab = tn_xmalloc(cells * sizeof *f->tab + 2);
    for (size_t i = 0; i < cells; i++)
        f->tab[i] = IB_NONE;
    f->tabline = tn_xcalloc(f->S, sizeof *f->tabline);
    uint8_t *seen = tn_xcalloc(f->nlid + 1, 1);
    char *buf = NULL;
    size_t cap = 0;
    long line = 0;
    int rc = 0;
    uint32_t cur = UINT32_MAX;
    int any = 0;
    while (rc == 0 && getline(&buf, &cap, in) >= 0) {
        line++;
        chomp(buf);
        const char *p = skip_ws(buf);
        if (!*p || *p == '#' || *p == ';')
            continue;
        const char *hdr = strstr(p, "ucast_mgr_dump_ucast_routes:");
        const char *lft = strncmp(p, "Unicast lids", 12) == 0 ? p : NULL;
        if (hdr || lft) {
            const char *g = hdr ? strstr(hdr, "Switch ") : strstr(lft, " guid ");
            if (g)
                g = skip_ws(g + (hdr ? 7 : 6));
            if (!g || strncmp(g, "0x", 2) != 0 || !isxdigit((unsigned char)g[2])) {
                rc = ferr(f, path, line, "expected the switch's GUID (\"%s 0x...\")", hdr ? "Switch" : "guid");
                break;
            }
            uint64_t guid = strtoull(g + 2, NULL, 16);
            cur = UINT32_MAX;
            for (uint32_t s = 0; s < f->S; s++)
                if (f->n[f->swnode[s]].guid == guid)
                    cur = s;
            if (cur == UINT32_MAX) {
                rc = ferr(f, path, line, "switch 0x%016" PRIx64 " is not in %s", guid, f->netpath);
                break;
            }
            if (f->tabline[cur]) {
                rc = ferr(f, path, line, "a second table of switch %s (the first at line %ld)",
                          f->n[f->swnode[cur]].name, f->tabline[cur]);
                break;
            }
            f->tabline[cur] = line;
            memset(seen, 0, f->nlid);
            any = 1;
            continue;
        }
        /* headers and trailers */
        if (strncmp(p, "LID", 3) == 0 || strncmp(p, "Lid", 3) == 0 || strncmp(p, "Port", 4) == 0 ||
            strncmp(p, "PLFT_NUM", 8) == 0 || (isdigit((unsigned char)*p) && strstr(p, "lids dumped")))
            continue;
        if (strncmp(p, "0x", 2) != 0 || !isxdigit((unsigned char)p[2])) {
            rc = ferr(f, path, line,
                      "expected a table header (\"osm_ucast_mgr_dump_ucast_routes: Switch 0x...\" or \"Unicast lids "
                      "[...] of switch ... guid 0x...\") or an entry (\"0xLID : PORT ...\" or \"0xLID PORT ...\")");
            break;
        }
        if (cur == UINT32_MAX) {
            rc = ferr(f, path, line, "an entry before any switch's table header");
            break;
        }
        char *e;
        unsigned long lid = strtoul(p + 2, &e, 16);
        const char *q = skip_ws(e);
        if (*q == ':')
            q = skip_ws(q + 1);
        if (strncmp(q, "UNREACHABLE", 11) == 0)
            continue;
        if (!isdigit((unsigned char)*q)) {
            rc = ferr(f, path, line, "expected the output port (a decimal number) or UNREACHABLE after LID 0x%lx",
                      lid);
            break;
        }
        unsigned long port = strtoul(q, &e, 10);
        uint32_t li = lid <= UINT32_MAX ? host_of_lid(lids, f->nlid, (uint32_t)lid) : UINT32_MAX;
        if (li == UINT32_MAX) {
            (*ignored)++;
            continue;
        }
        uint32_t h = lids[li].host, off = lids[li].off;
        ibnode *sn = &f->n[f->swnode[cur]];
        if (seen[li]) {
            rc = ferr(f, path, line, "switch %s: LID 0x%lx listed twice", sn->name, lid);
            break;
        }
        seen[li] = 1;
        if (port == 0 || port > sn->nports || f->dense[cur][port] == IB_NONE) {
            rc = ferr(f, path, line, "switch %s routes LID 0x%lx (host %s) to port %lu, %s", sn->name, lid,
                      f->h[h].name, port, port == 0 ? "the switch itself" : "which has no link in the topology");
            break;
        }
        uint16_t d = f->dense[cur][port];
        if (f->h[h].sw == cur && d != f->h[h].dport) {
            rc = ferr(f, path, line, "switch %s routes its own host %s (LID 0x%lx, on port %u) to port %lu", sn->name,
                      f->h[h].name, lid, f->ibport[cur][f->h[h].dport], port);
            break;
        }
        /* path v of h is its LID base + (v mod 2^LMC) */
        for (uint32_t v = off; v < (1u << f->B); v += 1u << f->h[h].lmc)
            f->tab[((size_t)v * f->S + cur) * f->N + h] = d;
    }
    free(buf);
    free(seen);
    if (rc == 0 && ferror(in))
        rc = ferr(f, path, 0, "read error");
    fclose(in);
    if (rc == 0 && !any)
        rc = ferr(f, path, 0,
                  "no forwarding table (\"osm_ucast_mgr_dump_ucast_routes: Switch 0x...\" or \"Unicast lids [...] "
                  "of switch ...\")");
    for (uint32_t s = 0; s < f->S && rc == 0; s++)
        if (!f->tabline[s])
            rc = ferr(f, f->netpath, f->n[f->swnode[s]].line, "switch %s has no forwarding table in %s",
                      f->n[f->swnode[s]].name, path);
    return rc;
}

/* ---- writing ---- */

static void put_q(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void write_dot(ibfab *f, FILE *out, ib_import_stats *st)
{
    uint32_t N = f->N, S = f->S;
    fprintf(out, "// InfiniBand fabric imported by tasknet import-ib from %s (ibnetdiscover) and %s (forwarding "
                 "tables):\n",
            f->netpath, f->fdbpath);
    fprintf(out, "// %u hosts (connected channel adapter ports), %u switches; read with <network type=\"graph\" "
                 "file=\"...\"/>\n",
            N, S);
    fprintf(out, "// (routing=\"file\", the default). Ports are each switch's connected IB ports in order.\n");
    fprintf(out, "digraph fabric {\n");
    if (f->B)
        fprintf(out, "  // lmc: path v of a host with LMC l is its LID base + (v mod 2^l); a message takes path v, bit "
                     "i of v its salt's i-th binary choice\n  lmc=%u;\n",
                f->B);
    for (uint32_t i = 0; i < N; i++) {
        fputs("  ", out);
        put_q(out, f->h[i].name);
        fprintf(out, " [kind=host, lid=%u", f->h[i].lid);
        if (f->h[i].lmc)
            fprintf(out, ", lmc=%u", f->h[i].lmc);
        if (f->n[f->h[i].ca].desc) {
            fputs(", desc=", out);
            put_q(out, f->n[f->h[i].ca].desc);
        }
        fputs("];\n", out);
    }
    for (uint32_t s = 0; s < S; s++) {
        ibnode *n = &f->n[f->swnode[s]];
        fputs("  ", out);
        put_q(out, n->name);
        fprintf(out, " [kind=switch, lid=%u", n->lid);
        if (n->desc) {
            fputs(", desc=", out);
            put_q(out, n->desc);
        }
        fputs("];\n", out);
    }
    for (uint32_t i = 0; i < N; i++) {
        fputs("  ", out);
        put_q(out, f->h[i].name);
        fputs(" -> ", out);
        put_q(out, f->n[f->swnode[f->h[i].sw]].name);
        fprintf(out, " [hport=%u, comment=\"*\"];\n", f->h[i].dport);
    }
    uint32_t P = 1u << f->B;
    uint32_t *cnt = NULL;
    /* the entries of one switch: (port, destination, path or IB_PATH_ALL) by port, destinations in order */
    size_t ecap = (size_t)N * P + 1;
    uint32_t *ep = tn_xmalloc(ecap * sizeof *ep), *ed = tn_xmalloc(ecap * sizeof *ed);
    uint32_t *ev = tn_xmalloc(ecap * sizeof *ev), *order = tn_xmalloc(ecap * sizeof *order);
    for (uint32_t s = 0; s < S; s++) {
        ibnode *n = &f->n[f->swnode[s]];
        uint32_t r = f->radix[s];
        cnt = tn_xrealloc(cnt, ((size_t)r + 2) * sizeof *cnt);
        memset(cnt, 0, ((size_t)r + 2) * sizeof *cnt);
        uint32_t *bare = tn_xcalloc((size_t)r + 1, sizeof *bare);
        uint32_t missing = 0;
        size_t ne = 0;
        for (uint32_t d = 0; d < N; d++) {
            uint16_t e0 = f->tab[(size_t)s * N + d];
            int same = 1, miss = 0;
            for (uint32_t v = 1; v < P && same; v++)
                same = f->tab[((size_t)v * S + s) * N + d] == e0;
            for (uint32_t v = 0; v < (same ? 1 : P); v++) {
                uint16_t e = f->tab[((size_t)v * S + s) * N + d];
                if (e == IB_NONE) {
                    miss |= f->h[d].sw != s;
                    continue;
                }
                ep[ne] = e;
                ed[ne] = d;
                ev[ne++] = same ? UINT32_MAX : v;
                cnt[e + 1]++;
                bare[e] += same;
            }
            missing += (uint32_t)miss;
        }
        st->missing += missing;
        /* the wildcard: the switch-peer port carrying the most destinations on every path */
        uint32_t wild = UINT32_MAX;
        if (missing == 0) {
            for (uint32_t p = 0; p < r; p++)
                if (f->n[n->l[p].peer].type == 'S' && bare[p] > 0 && (wild == UINT32_MAX || bare[p] > bare[wild]))
                    wild = p;
        }
        free(bare);
        for (uint32_t p = 0; p < r; p++)
            cnt[p + 1] += cnt[p];
        for (size_t i = 0; i < ne; i++)
            order[cnt[ep[i]]++] = (uint32_t)i;
        /* cnt[p] is now the end of port p's run; its start is cnt[p - 1] (0 for p = 0) */
        fprintf(out, "  // %s", n->name);
        if (n->desc)
            fprintf(out, " (%s)", n->desc);
        fprintf(out, ": IB ports");
        for (uint32_t p = 0; p < r; p++)
            fprintf(out, " %u", f->ibport[s][p]);
        fprintf(out, " are ports 0..%u\n", r - 1);
        for (uint32_t p = 0; p < r; p++) {
            const iblink *l = &n->l[p];
            ibnode *peer = &f->n[l->peer];
            fputs("  ", out);
            put_q(out, n->name);
            fputs(" -> ", out);
            if (peer->type == 'S') {
                put_q(out, peer->name);
                fprintf(out, " [tport=%u, hport=%u, comment=", p, f->dense[peer->sw][l->pport]);
            } else {
                char nm[300];
                if (peer->nconn > 1)
                    snprintf(nm, sizeof nm, "%s-P%u", peer->name, l->pport);
                else
                    snprintf(nm, sizeof nm, "%s", peer->name);
                put_q(out, nm);
                fprintf(out, " [tport=%u, comment=", p);
            }
            if (p == wild) {
                fputs("\"*\"];\n", out);
                continue;
            }
            fputc('"', out);
            size_t from = p ? cnt[p - 1] : 0, to = cnt[p];
            for (size_t i = from; i < to; i++) {
                for (const char *c = f->h[ed[order[i]]].name; *c; c++) {
                    if (*c == '"' || *c == '\\')
                        fputc('\\', out);
                    fputc(*c, out);
                }
                if (ev[order[i]] != UINT32_MAX)
                    fprintf(out, "@%u", ev[order[i]]);
                if (i + 1 < to)
                    fputc(',', out);
            }
            fputs("\"];\n", out);
        }
    }
    free(ep);
    free(ed);
    free(ev);
    fputs("}\n", out);
    free(cnt);
    free(order);
}

int topo_import_ib(const char *ibnetdiscover, const char *fdbs, FILE *out, ib_import_stats *stats, char *err,
                   size_t errlen)
{
    ibfab f = {.netpath = ibnetdiscover, .fdbpath = fdbs, .err = err, .errlen = errlen};
    ib_import_stats st = {0};
    lident *lids = NULL;
    int rc = read_net(&f);
    if (rc == 0)
        rc = check_links(&f);
    if (rc == 0)
        rc = build(&f, &lids);
    if (rc == 0 && (uint64_t)f.S * f.N > (UINT64_C(1) << 34))
        rc = ferr(&f, ibnetdiscover, 0, "a table of %u switches x %u hosts is too large", f.S, f.N);
    if (rc == 0)
        rc = read_fdbs(&f, lids, &st.ignored);
    if (rc == 0) {
        write_dot(&f, out, &st);
        st.hosts = f.N;
        st.switches = f.S;
        for (uint32_t h = 0; h < f.N; h++)
            if (f.h[h].lmc > 0)
                st.lmc_hosts++;
        if (ferror(out))
            rc = tn_error(err, errlen, "write error");
    }
    if (stats)
        *stats = st;
    for (size_t i = 0; i < f.nn; i++) {
        free(f.n[i].name);
        free(f.n[i].desc);
        free(f.n[i].l);
    }
    for (uint32_t i = 0; f.h && i < f.N; i++)
        free(f.h[i].name);
    for (uint32_t s = 0; f.dense && s < f.S; s++) {
        free(f.dense[s]);
        free(f.ibport[s]);
    }
    free(f.n);
    free(f.hash);
    free(f.swnode);
    free(f.h);
    free(f.dense);
    free(f.radix);
    free(f.ibport);
    free(f.tab);
    free(f.tabline);
    free(lids);
    return rc;
}
