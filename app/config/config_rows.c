/* The composed parameter table: the core's rows (below), the physical
 * layer's (phy/phy_params.c) and every registered plugin's, each with the
 * owner whose params struct holds its value; the XML elements their paths
 * imply; defaults, copies, set and get of a configuration's values.
 *
 * The table and the elements are computed once from constant data (the
 * registries) and never change afterwards. */
#include "config_impl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "placement.h"

/* ------------------------------------------------------------ core rows */

#define ROW(path_, type_, unit_, def_, help_) .path = path_, .type = type_, .unit = unit_, .def = def_, .help = help_

static const param_row core_rows[] = {
    {ROW("system.nodes", "integer", "", "", "nodes N (>= 2)"), .kind = PARAM_U32, .off = offsetof(cfg, nodes),
     .flags = PARAM_UNSET0 | PARAM_REQUIRED, .min = 2, .max = UINT32_MAX, .example = "100",
     .note = "a network connects at least 2 nodes"},
    {ROW("network.type", "string", "", NULL, "fabric (one of the network types listed below)"),
     .kind = PARAM_NAME, .off = offsetof(cfg, net_type), .name_ok = net_name_ok},
    {ROW("network.bandwidth", "rate", "b/s", "", "access bandwidth B of every node (> 0)"), .kind = PARAM_REAL,
     .dim = UNIT_RATE, .off = offsetof(cfg, net.bandwidth_bps), .flags = PARAM_POS | PARAM_UNSET0 | PARAM_REQUIRED,
     .alt = "network.zeta", .example = "40Gb/s"},
    {ROW("network.switch-latency", "time", "s", "200ns", "electrical switch traversal (>= 0); input-queued routers add it to st-delay at every switch, "
                                                       "and the switched fabrics' default there is 0 (their own row)"),
     .kind = PARAM_PS,
     .off = offsetof(cfg, net.switch_latency_ps), .flags = PARAM_NONNEG, .example = "200ns"},
    {ROW("network.link-latency", "time", "s", "20ns", "propagation on one electrical link (>= 0)"),
     .kind = PARAM_PS, .off = offsetof(cfg, net.link_latency_ps), .flags = PARAM_NONNEG, .example = "20ns"},
    {ROW("transport.type", "choice", "", "none",
         "host transport (networks/transport.h): none (messages go to the fabric as they are) | tcp (NewReno) | "
         "dctcp (RFC 8257) | dcqcn (Zhu et al. 2015, over network.flow-control=pfc) | hpcc (Li et al. 2019: INT-based, "
         "over network.flow-control=pfc, delayed-ack 1)"),
     .kind = PARAM_CHOICE, .off = offsetof(cfg, tp.type), .choices = tp_names, .example = "tcp"},
    {ROW("transport.init-cwnd", "integer", "", "10", "transport: initial congestion window, segments (>= 1)"),
     .kind = PARAM_U32, .off = offsetof(cfg, tp.init_cwnd), .min = 1, .max = 1u << 20, .example = "10"},
    {ROW("transport.min-rto", "time", "s", "1s", "transport: lower bound of the retransmission timeout (RFC 6298)"),
     .kind = PARAM_PS, .off = offsetof(cfg, tp.min_rto_ps), .flags = PARAM_NONNEG, .example = "10ms"},
    {ROW("transport.initial-rto", "time", "s", "1s", "transport: retransmission timeout before any RTT sample"),
     .kind = PARAM_PS, .off = offsetof(cfg, tp.init_rto_ps), .flags = PARAM_POS, .example = "1s"},
    {ROW("transport.delayed-ack", "integer", "", "2", "transport: in-order segments acked together (1 = every one)"),
     .kind = PARAM_U32, .off = offsetof(cfg, tp.delayed_ack), .min = 1, .max = 1u << 16, .example = "2"},
    {ROW("transport.delayed-ack-timeout", "time", "s", "200ms", "transport: a held-back ACK leaves after this"),
     .kind = PARAM_PS, .off = offsetof(cfg, tp.delack_timeout_ps), .flags = PARAM_POS, .example = "200ms"},
    {ROW("transport.mss", "size", "B", "1.46kB", "transport: segment payload (its packets: mss + header)"),
     .kind = PARAM_BYTES, .off = offsetof(cfg, tp.mss_bytes), .flags = PARAM_POS, .example = "1460B"},
    {ROW("transport.header", "size", "B", "40B", "transport: header bytes of a segment on the wire, and an ACK's size"),
     .kind = PARAM_BYTES, .off = offsetof(cfg, tp.header_bytes), .flags = PARAM_NONNEG, .example = "40B"},
    {ROW("transport.growth", "choice", "", "reno",
         "tcp, dctcp: window growth: reno (+1 mss per ACK in slow start: ns-3 TcpNewReno) | linux (+1 mss per "
         "segment acked: Linux, ns-3 TcpLinuxReno and TcpDctcp)"),
     .kind = PARAM_CHOICE, .off = offsetof(cfg, tp.growth), .choices = tp_growth_names, .example = "linux"},
    {ROW("transport.quick-ack", "integer", "", "0",
         "transport: the receiver acks each of a flow's first N in-order segments at once (Linux's quick-ACK "
         "mode at connection start: 16; ns-3 acks a connection's first data segment at once: 1); 0 = delayed ACKs "
         "from the first segment"),
     .kind = PARAM_U32, .off = offsetof(cfg, tp.quick_ack), .min = 0, .max = 1u << 20, .example = "16"},
    {ROW("transport.window", "size", "B", "0B",
         "tcp, dctcp: most bytes a flow has outstanding, its socket buffers' limit (ns-3's default Snd/RcvBufSize: "
         "131072B); 0 = no limit but the receive window of 4096 segments"),
     .kind = PARAM_BYTES, .off = offsetof(cfg, tp.window_bytes), .flags = PARAM_NONNEG, .example = "131072B"},
    {ROW("transport.ack-class", "choice", "", "data",
         "tcp, dctcp: the priority class ACKs travel in: data (their flow's) | 0 .. 7 (ns-3: a receiving socket "
         "whose IP ToS is not set sends ACKs at priority 0, pfifo_fast's band 1, whatever its data's band)"),
     .kind = PARAM_CHOICE, .off = offsetof(cfg, tp.ack_class), .choices = tp_ack_class_names, .example = "1"},
    {ROW("transport.limited-transmit", "choice", "", "off",
         "tcp, dctcp: RFC 3042's limited transmit: a new segment on each of the first two duplicate ACKs (on in "
         "Linux and ns-3; with sack on, RFC 6675's pipe-based step 3) | off (default, the historical model)"),
     .kind = PARAM_CHOICE, .off = offsetof(cfg, tp.limited_transmit), .choices = tp_onoff_names, .example = "on"},
    {ROW("transport.sack", "choice", "", "off",
         "tcp, dctcp: SACK: ACKs carry up to 3 blocks (RFC 2018; header + 4 + 8 B per block), the sender recovers "
         "with RFC 6675's scoreboard, pipe and NextSeg (on in Linux and ns-3) | off (default: NewReno, RFC 6582)"),
     .kind = PARAM_CHOICE, .off = offsetof(cfg, tp.sack), .choices = tp_onoff_names, .example = "on"},
    {ROW("transport.handshake", "choice", "", "off",
         "tcp, dctcp: on = each connection opens with a SYN (data class) and a SYN-ACK (ACK class) before its data; "
         "the SYN's round trip is its first RTT sample, a lost SYN is sent again after initial-rto x 2^k (ns-3, "
         "basic-sim); the FCT counts from the connect | off (default: data at once, no RTT sample before it)"),
     .kind = PARAM_CHOICE, .off = offsetof(cfg, tp.handshake), .choices = tp_onoff_names, .example = "on"},
    {ROW("transport.connection", "choice", "", "message",
         "tcp, dctcp: message (default: a connection per message, fresh window and RTT state) | persistent (one "
         "connection, a byte stream, per source, destination and class for the run: messages queue in it, window, "
         "ssthresh and RTT estimate carry over, no restart after idle, as ns-3's sockets; the thesis' Horovod)"),
     .kind = PARAM_CHOICE, .off = offsetof(cfg, tp.persistent), .choices = tp_connection_names,
     .example = "persistent"},
    {ROW("transport.completion", "choice", "", "receiver",
         "when a message is complete (its FCT ends, its workload sees it): receiver (default: the receiver holds "
         "its last byte) | close (its sender has the ACK of its last byte: basic-sim's FCT ends at the socket's "
         "close, one ACK trip later; per-message connections only)"),
     .kind = PARAM_CHOICE, .off = offsetof(cfg, tp.completion), .choices = tp_completion_names, .example = "close"},
    {ROW("transport.g", "number", "", "0.0625", "dctcp: gain of the marked fraction's moving average alpha"),
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = offsetof(cfg, tp.g), .flags = PARAM_POS, .example = "0.0625"},
    {ROW("transport.variant", "choice", "", "rfc",
         "dctcp: rfc (default: RFC 8257, losses by RFC 5681 / 6582) | ns-3 (ns-3 3.37's TcpDctcp, for "
         "cross-validation against ns-3 studies: ssthresh (1 - alpha/2) cwnd on a loss, no fast or limited transmit in CWR, "
         "no 2-segment floor under the ECN cut, the CE-change ACK one segment short; networks/tp_dctcp.c's head; "
         "sack off)"),
     .kind = PARAM_CHOICE, .off = offsetof(cfg, tp.variant), .choices = tp_variant_names, .example = "ns-3"},
    {ROW("transport.dcqcn-g", "number", "", "0.00390625", "dcqcn: gain of alpha (HPCC ns-3 code: 1/256)"),
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = offsetof(cfg, tp.dcqcn_g), .flags = PARAM_POS, .example = "0.00390625"},
    {ROW("transport.alpha-interval", "time", "s", "1us", "dcqcn: alpha update period"),
     .kind = PARAM_PS, .off = offsetof(cfg, tp.alpha_interval_ps), .flags = PARAM_POS, .example = "55us"},
    {ROW("transport.decrease-interval", "time", "s", "4us", "dcqcn: rate decrease check period"),
     .kind = PARAM_PS, .off = offsetof(cfg, tp.decrease_interval_ps), .flags = PARAM_POS, .example = "50us"},
    {ROW("transport.increase-timer", "time", "s", "300us", "dcqcn: rate increase timer"),
     .kind = PARAM_PS, .off = offsetof(cfg, tp.increase_timer_ps), .flags = PARAM_POS, .example = "55us"},
    {ROW("transport.fast-recovery", "integer", "", "1", "dcqcn: fast recovery stages F"),
     .kind = PARAM_U32, .off = offsetof(cfg, tp.fast_recovery), .min = 0, .max = 1000, .example = "5"},
    {ROW("transport.rate-ai", "rate", "b/s", "0b/s", "dcqcn: additive increase (0: 5 Mb/s per 25 Gb/s of B)"),
     .kind = PARAM_REAL, .dim = UNIT_RATE, .off = offsetof(cfg, tp.rate_ai_bps), .flags = PARAM_NONNEG,
     .example = "40Mb/s"},
    {ROW("transport.rate-hai", "rate", "b/s", "0b/s", "dcqcn: hyper increase (0: 50 Mb/s per 25 Gb/s of B)"),
     .kind = PARAM_REAL, .dim = UNIT_RATE, .off = offsetof(cfg, tp.rate_hai_bps), .flags = PARAM_NONNEG,
     .example = "200Mb/s"},
    {ROW("transport.min-rate", "rate", "b/s", "1Gb/s", "dcqcn, hpcc: floor of a flow's rate"),
     .kind = PARAM_REAL, .dim = UNIT_RATE, .off = offsetof(cfg, tp.min_rate_bps), .flags = PARAM_POS,
     .example = "100Mb/s"},
    {ROW("transport.cnp-interval", "time", "s", "50us", "dcqcn: a receiver sends at most one CNP per flow this often"),
     .kind = PARAM_PS, .off = offsetof(cfg, tp.cnp_interval_ps), .flags = PARAM_NONNEG, .example = "50us"},
    {ROW("transport.eta", "number", "", "0.95", "hpcc: target utilisation eta of the most loaded hop, in (0, 1]"),
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = offsetof(cfg, tp.eta), .flags = PARAM_POS, .example = "0.95"},
    {ROW("transport.max-stage", "integer", "", "5",
         "hpcc: additive-increase rounds before a multiplicative step (the paper's maxStage; the ns-3 code's "
         "run.py: 0)"),
     .kind = PARAM_U32, .off = offsetof(cfg, tp.max_stage), .min = 0, .max = 1000000, .example = "5"},
    {ROW("transport.w-ai", "size", "B", "0B",
         "hpcc: additive increase W_AI per RTT (0: 10 Mb/s per 25 Gb/s of B, times T: the ns-3 code's run.py)"),
     .kind = PARAM_BYTES, .off = offsetof(cfg, tp.w_ai_bytes), .flags = PARAM_NONNEG, .example = "80B"},
    {ROW("transport.base-rtt", "time", "s", "0s",
         "hpcc: base RTT T of every flow (0: each flow's zero-load round trip, a full segment out and its ACK back)"),
     .kind = PARAM_PS, .off = offsetof(cfg, tp.base_rtt_ps), .flags = PARAM_NONNEG, .example = "8us"},
    {ROW("transport.int-header", "size", "B", "42B",
         "hpcc: INT bytes on every data segment and ACK (the ns-3 code: 5 hops x 8 B + 2 B, whatever the hops)"),
     .kind = PARAM_BYTES, .off = offsetof(cfg, tp.int_bytes), .flags = PARAM_NONNEG, .example = "42B"},
    {ROW("run.replicas", "integer", "", "1", "independent replicas of every sweep point (>= 1)"), .kind = PARAM_U32,
     .off = offsetof(cfg, replicas), .min = 1, .max = UINT32_MAX, .example = "5"},
    {ROW("run.seed", "integer", "", "1", "base seed of the random streams (0 .. 2^64-1)"), .kind = PARAM_U64,
     .off = offsetof(cfg, seed), .min = 0, .max = UINT64_MAX, .example = "1"},
    {ROW("run.confidence", "number", "", "0.95",
         "level of the confidence intervals of summary.csv and plots, in (0, 1): columns <metric>_ci95 at 0.95, "
         "_ci99 at 0.99"),
     .kind = PARAM_REAL, .dim = UNIT_NONE, .off = offsetof(cfg, confidence), .flags = PARAM_POS | PARAM_REPORT,
     .example = "0.99"},
};

/* A workload's own parameters (a <workload> element's, whatever its type). */
static const char *const wl_role_names[] = {"foreground", "background", NULL};
static const char *const wl_exclusive_names[] = {"auto", "yes", "no", NULL};
static const char *const wl_measure_names[] = {"all", "window", NULL};

static int wl_name_valid(const char *name, char *err, size_t errlen)
{
    if (!name[0])
        return 0;
    if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z')))
        return tn_error(err, errlen, "'%s': a name starts with a letter", name);
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
              *p == '_'))
            return tn_error(err, errlen, "'%s': a name has letters, digits, '-' and '_' only", name);
    return 0;
}

static int wl_priority_valid(const char *v, char *err, size_t errlen)
{
    if (!v[0] || strcmp(v, "high") == 0 || strcmp(v, "low") == 0)
        return 0;
    if (v[0] >= '0' && v[0] < '0' + NET_PRIO_CLASSES && !v[1])
        return 0;
    return tn_error(err, errlen, "'%s': a priority class is 0 (first) to %d, high (0) or low (%d)", v,
                    NET_PRIO_CLASSES - 1, NET_PRIO_CLASSES - 1);
}

static const param_row wl_inst_rows[] = {
    {ROW("workload.type", "string", "", NULL, "workload (one of the workload types listed below)"),
     .kind = PARAM_NAME, .off = offsetof(cfg_workload, type), .name_ok = wl_name_ok},
    {ROW("workload.name", "string", "", "", "the workload's name (required with several workloads); a named "
                                            "workload's parameters are workload.<name>.<attr> and its metrics "
                                            "<name>.<metric>, alone or beside others"),
     .kind = PARAM_NAME, .off = offsetof(cfg_workload, name), .name_ok = wl_name_valid, .example = "train"},
    {ROW("workload.nodes", "string", "", "all",
         "the nodes it runs on, its ranks in order: all | 0-7,12 | contiguous(o,n) | interleaved(o,s,n) | random(n)"),
     .kind = PARAM_TEXT, .off = offsetof(cfg_workload, nodes), .max = CFG_NODES_MAX, .name_ok = wl_nodes_valid,
     .example = "0-7"},
    {ROW("workload.priority", "string", "", "", "service class of all its messages: 0 (first) to 7, high, low "
                                                "(unset: the workload's own classes)"),
     .kind = PARAM_NAME, .off = offsetof(cfg_workload, priority), .name_ok = wl_priority_valid, .example = "low"},
    {ROW("workload.role", "choice", "", "foreground",
         "foreground | background (stops generating once every foreground workload has finished)"),
     .kind = PARAM_CHOICE, .off = offsetof(cfg_workload, role), .choices = wl_role_names, .example = "background"},
    {ROW("workload.measure", "choice", "", "all",
         "all | window (a background workload's metrics count only what arrives in the foreground's window: "
         "from the first foreground workload's first activity to the last one's end; dc-flows)"),
     .kind = PARAM_CHOICE, .off = offsetof(cfg_workload, measure), .choices = wl_measure_names, .example = "window"},
    {ROW("workload.exclusive", "choice", "", "auto",
         "auto (the workload type's own) | yes (no other exclusive workload on its nodes) | no"),
     .kind = PARAM_CHOICE, .off = offsetof(cfg_workload, exclusive), .choices = wl_exclusive_names,
     .example = "yes"},
    {ROW("workload.transport", "choice", "", "inherit",
         "the host transport of its messages: inherit (the run's <transport>) | none | tcp | dctcp | dcqcn | hpcc (the "
         "run's transport.* parameters apply)"),
     .kind = PARAM_CHOICE, .off = offsetof(cfg_workload, transport), .choices = tp_wl_names, .example = "dctcp"},
    {ROW("workload.ack-class", "choice", "", "inherit",
         "the class its transport's ACKs travel in: inherit (the run's transport.ack-class) | data | 0 .. 7 (e.g. an "
         "application that sets the IP ToS on both ends of its sockets beside one that sets it at the sender only)"),
     .kind = PARAM_CHOICE, .off = offsetof(cfg_workload, ack_class), .choices = tp_wl_ack_class_names,
     .example = "data"},
    {ROW("workload.connection", "choice", "", "inherit",
         "its transport's connections: inherit (the run's transport.connection) | message | persistent (e.g. "
         "training on long-lived sockets beside web flows that connect per flow)"),
     .kind = PARAM_CHOICE, .off = offsetof(cfg_workload, connection), .choices = tp_wl_connection_names,
     .example = "persistent"},
};

/* --------------------------------------------------------- the table */

typedef struct crow {
    cfg_param_info info;
    size_t canon; /* first row of the same path */
    int elem;     /* element of its attribute */
} crow;

typedef struct ctable {
    int built;
    crow row[CFG_MAX_ROWS];
    size_t nrows;
    celem elem[CFG_MAX_ELEMS];
    size_t nelems;
    int sweep, axis, value; /* structural elements */
    int workload;           /* the <workload> element (may repeat) */
} ctable;

static ctable table;

/* The element of a path prefix, created (with its ancestors) if new. */
static int elem_of_prefix(const char *prefix, size_t len)
{
    if (len == 0)
        return CE_ROOT;
    for (size_t e = 0; e < table.nelems; e++)
        if (strlen(table.elem[e].prefix) == len && strncmp(table.elem[e].prefix, prefix, len) == 0)
            return (int)e;
    size_t cut = len;
    while (cut > 0 && prefix[cut - 1] != '.')
        cut--;
    int parent = elem_of_prefix(prefix, cut ? cut - 1 : 0);
    TN_ASSERT(table.nelems < CFG_MAX_ELEMS, "more than %d configuration elements", CFG_MAX_ELEMS);
    TN_ASSERT(len < sizeof table.elem[0].prefix && len - cut < sizeof table.elem[0].name,
              "parameter path prefix '%.*s' too long", (int)len, prefix);
    celem *ce = &table.elem[table.nelems];
    memcpy(ce->prefix, prefix, len);
    ce->prefix[len] = '\0';
    memcpy(ce->name, prefix + cut, len - cut);
    ce->name[len - cut] = '\0';
    ce->parent = parent;
    ce->many = 0;
    return (int)table.nelems++;
}

static int add_struct_elem(const char *name, int parent, int many)
{
    TN_ASSERT(table.nelems < CFG_MAX_ELEMS, "more than %d configuration elements", CFG_MAX_ELEMS);
    celem *ce = &table.elem[table.nelems];
    snprintf(ce->name, sizeof ce->name, "%s", name);
    ce->prefix[0] = '\0';
    ce->parent = parent;
    ce->many = many;
    return (int)table.nelems++;
}

static void add_rows(const param_row *rows, size_t n, cfg_owner owner, const char *plugin)
{
    for (size_t i = 0; i < n; i++) {
        TN_ASSERT(table.nrows < CFG_MAX_ROWS, "more than %d parameters", CFG_MAX_ROWS);
        crow *r = &table.row[table.nrows];
        r->info.row = &rows[i];
        r->info.owner = owner;
        r->info.plugin = plugin;
        r->canon = table.nrows;
        for (size_t k = 0; k < table.nrows; k++)
            if (strcmp(table.row[k].info.row->path, rows[i].path) == 0) {
                const param_row *a = table.row[k].info.row;
                /* one path, one parameter: the same text means the same value.
                 * The default is each plugin's own (network.mtu: whole
                 * messages on the single switch, 4.096kB packets on the
                 * switched topologies); `params` lists it per plugin. */
                TN_ASSERT(a->kind == rows[i].kind && a->dim == rows[i].dim && a->flags == rows[i].flags,
                          "parameter %s is declared twice with different kinds or flags (%s)", rows[i].path,
                          plugin ? plugin : "core");
                r->canon = k;
                break;
            }
        const char *dot = strrchr(rows[i].path, '.');
        TN_ASSERT(dot, "parameter path '%s' has no element", rows[i].path);
        r->elem = elem_of_prefix(rows[i].path, (size_t)(dot - rows[i].path));
        table.nrows++;
    }
}

static void build(void)
{
    if (table.built)
        return;
    snprintf(table.elem[0].name, sizeof table.elem[0].name, "tasknet");
    table.elem[0].prefix[0] = '\0';
    table.elem[0].parent = -1;
    table.nelems = 1;
    /* the core's rows, the workloads' own just before the first run.* row
     * (the order of elements in `tasknet params` and written files:
     * system, network, workload, run) */
    size_t ncore = sizeof core_rows / sizeof core_rows[0], run0 = 0;
    while (run0 < ncore && strncmp(core_rows[run0].path, "run.", 4) != 0)
        run0++;
    add_rows(core_rows, run0, CFG_OWN_CORE, NULL);
    add_rows(wl_inst_rows, sizeof wl_inst_rows / sizeof wl_inst_rows[0], CFG_OWN_WLI, NULL);
    add_rows(core_rows + run0, ncore - run0, CFG_OWN_CORE, NULL);
    add_rows(phy_param_rows, phy_param_nrows, CFG_OWN_PHY, NULL);
    for (size_t i = 0; net_registry[i]; i++)
        add_rows(net_registry[i]->params, net_registry[i]->nparams, CFG_OWN_NET, net_registry[i]->name);
    for (size_t i = 0; wl_registry[i]; i++)
        add_rows(wl_registry[i]->params, wl_registry[i]->nparams, CFG_OWN_WL, wl_registry[i]->name);
    table.workload = -1;
    for (size_t e = 0; e < table.nelems; e++)
        if (table.elem[e].parent == CE_ROOT && strcmp(table.elem[e].name, "workload") == 0)
            table.workload = (int)e;
    TN_ASSERT(table.workload >= 0, "no <workload> element among the rows");
    table.elem[table.workload].many = 1;
    table.sweep = add_struct_elem("sweep", CE_ROOT, 0);
    table.axis = add_struct_elem("axis", table.sweep, 1);
    table.value = add_struct_elem("value", table.axis, 1);
    table.built = 1;
}

size_t crow_count(void)
{
    build();
    return table.nrows;
}

const cfg_param_info *crow_at(size_t i)
{
    build();
    return i < table.nrows ? &table.row[i].info : NULL;
}

size_t crow_canon(size_t i)
{
    build();
    return table.row[i].canon;
}

int crow_elem(size_t i)
{
    build();
    return table.row[i].elem;
}

long crow_find(const char *path)
{
    build();
    for (size_t i = 0; i < table.nrows; i++)
        if (strcmp(table.row[i].info.row->path, path) == 0)
            return (long)i;
    return -1;
}

size_t cfg_param_count(void) { return crow_count(); }
const cfg_param_info *cfg_param_at(size_t i) { return crow_at(i); }

size_t celem_count(void)
{
    build();
    return table.nelems;
}

const celem *celem_at(size_t i)
{
    build();
    return i < table.nelems ? &table.elem[i] : NULL;
}

int celem_find_child(int parent, const char *name)
{
    build();
    for (size_t e = 0; e < table.nelems; e++)
        if (table.elem[e].parent == parent && strcmp(table.elem[e].name, name) == 0)
            return (int)e;
    return -1;
}

int celem_sweep(void)
{
    build();
    return table.sweep;
}

int celem_axis(void)
{
    build();
    return table.axis;
}

int celem_value(void)
{
    build();
    return table.value;
}

/* ------------------------------------------------------------ owners */

int crow_is_wl(size_t i)
{
    cfg_owner o = crow_at(i)->owner;
    return o == CFG_OWN_WL || o == CFG_OWN_WLI;
}

int celem_workload(void)
{
    build();
    return table.workload;
}

int celem_in_workload(int e)
{
    for (; e >= 0; e = table.elem[e].parent)
        if (e == table.workload)
            return 1;
    return 0;
}

void *crow_block(const cfg *c, size_t i, size_t k)
{
    const cfg_param_info *p = crow_at(i);
    TN_ASSERT(k < c->nwl || !crow_is_wl(i), "workload %zu of %zu", k, c->nwl);
    switch (p->owner) {
    case CFG_OWN_CORE: return (void *)c;
    case CFG_OWN_PHY: return (void *)&c->phy;
    case CFG_OWN_NET: return c->net_block[net_index(net_find(p->plugin))];
    case CFG_OWN_WL: return c->wl[k].block[wl_index(wl_find(p->plugin))];
    case CFG_OWN_WLI: return (void *)&c->wl[k];
    }
    TN_ASSERT(0, "row %zu has no owner", i);
    return NULL;
}

int crow_selected(const cfg *c, size_t i, size_t k)
{
    const cfg_param_info *p = crow_at(i);
    switch (p->owner) {
    case CFG_OWN_NET: return strcmp(p->plugin, c->net_type) == 0;
    case CFG_OWN_WL: return k < c->nwl && strcmp(p->plugin, c->wl[k].type) == 0;
    default: return 1;
    }
}

/* Does some point of c select plugin `name` for the parameter `type_path`
 * (whose base value is `base`)? */
static int used_somewhere(const cfg *c, const char *type_path, const char *base, const char *name)
{
    int a = cfg_axis_of(c, type_path);
    if (a < 0 || c->point)
        return strcmp(base, name) == 0;
    for (size_t v = 0; v < c->axes[a].nvalues; v++)
        if (strcmp(c->axes[a].values[v], name) == 0)
            return 1;
    return 0;
}

/* The path of workload k's type as an axis names it. */
static void wl_type_path(const cfg *c, size_t k, char *buf, size_t len)
{
    if (c->nwl > 1 || c->wl[k].name[0])
        snprintf(buf, len, "workload.%s.type", c->wl[k].name);
    else
        snprintf(buf, len, "workload.type");
}

int crow_used(const cfg *c, size_t i, size_t k)
{
    const cfg_param_info *p = crow_at(i);
    switch (p->owner) {
    case CFG_OWN_NET: return used_somewhere(c, "network.type", c->net_type, p->plugin);
    case CFG_OWN_WL: {
        char tp[PARAM_NAME_MAX + 32];
        wl_type_path(c, k, tp, sizeof tp);
        /* a single workload's type may be swept as workload.type too */
        return used_somewhere(c, tp, c->wl[k].type, p->plugin) ||
               (c->nwl == 1 && used_somewhere(c, "workload.type", c->wl[k].type, p->plugin));
    }
    default: return 1;
    }
}

int crow_when_holds(const cfg *c, size_t i, size_t k, char *seen, size_t len)
{
    const cfg_param_info *p = crow_at(i);
    const char *when = p->row->when, *eq = when ? strchr(when, '=') : NULL;
    if (!eq)
        return 1;
    /* the row it depends on: same path, same owner */
    long j = -1;
    for (size_t x = 0; x < crow_count() && j < 0; x++)
        if (strncmp(crow_at(x)->row->path, when, (size_t)(eq - when)) == 0 &&
            crow_at(x)->row->path[eq - when] == '\0' && crow_at(x)->owner == p->owner &&
            (!p->plugin || (crow_at(x)->plugin && strcmp(crow_at(x)->plugin, p->plugin) == 0)))
            j = (long)x;
    if (j < 0)
        return 1;
    char base[256];
    if (cfg_param_get_at(c, (size_t)j, k, base, sizeof base) != 0)
        return 1;
    char *path = crow_path(c, (size_t)j, k);
    int holds = used_somewhere(c, path, base, eq + 1);
    int a = cfg_axis_of(c, path);
    if (!holds && a >= 0 && !c->point) {
        size_t l = 0;
        seen[0] = '\0';
        for (size_t v = 0; v < c->axes[a].nvalues && l < len; v++)
            l += (size_t)snprintf(seen + l, len - l, "%s%s", v ? (v + 1 == c->axes[a].nvalues ? " or " : ", ") : "",
                                  c->axes[a].values[v]);
    } else if (!holds) {
        snprintf(seen, len, "%s", base);
    }
    free(path);
    return holds;
}

size_t crow_wl_home(const cfg *c, size_t i)
{
    const cfg_param_info *p = crow_at(i);
    if (p->owner == CFG_OWN_WL)
        for (size_t k = 0; k < c->nwl; k++)
            if (strcmp(c->wl[k].type, p->plugin) == 0)
                return k;
    return 0;
}

unsigned char *crow_given(const cfg *c, size_t canon, size_t k)
{
    return &c->given[(crow_is_wl(canon) ? k : 0) * CFG_MAX_ROWS + canon];
}

unsigned char *crow_rejected(const cfg *c, size_t i, size_t k)
{
    return &c->rejected[(crow_is_wl(i) ? k : 0) * CFG_MAX_ROWS + i];
}

int crow_rejected_why(const cfg *c, size_t i, size_t k, char *err, size_t errlen)
{
    if (!*crow_rejected(c, i, k))
        return -1;
    /* the value as an owner that took it holds it, parsed again by this row */
    size_t canon = crow_canon(i);
    for (size_t j = canon; j < crow_count(); j++) {
        if (crow_canon(j) != canon || *crow_rejected(c, j, k))
            continue;
        char *v = param_format(crow_block(c, j, k), crow_at(j)->row, c->basedir);
        param_value pv;
        char e2[1024];
        if (param_parse(crow_at(i)->row, v, c->basedir, &pv, e2, sizeof e2) == 0) {
            param_value_free(&pv);
            tn_error(err, errlen, "'%s': not a value of the %s's", v, crow_owner_name(i));
        } else
            tn_error(err, errlen, "'%s': %s", v, e2); /* the value named: an axis's point has no attribute showing it */
        free(v);
        return 0;
    }
    tn_error(err, errlen, "the value given: not a value of the %s's", crow_owner_name(i));
    return 0;
}

/* The row of canonical row `first` that applies to workload k of c: the
 * selected owner's, else the first (an owner that rejected the value given
 * holds none: the next). Of several selected owners, one whose row applies
 * only where another of its parameters has a value (param_row.when) answers
 * where that holds, before an unconditional one: the switched fabrics'
 * network.switch-latency under network.router=input-queued, where the
 * core's row is the output-queued router's. */
static long row_for(const cfg *c, long first, size_t k)
{
    char seen[256];
    for (size_t i = (size_t)first; i < crow_count(); i++)
        if (crow_canon(i) == (size_t)first && crow_at(i)->row->when && crow_selected(c, i, k) &&
            !*crow_rejected(c, i, k) && crow_when_holds(c, i, k, seen, sizeof seen))
            return (long)i;
    for (size_t i = (size_t)first; i < crow_count(); i++)
        if (crow_canon(i) == (size_t)first && crow_selected(c, i, k) && !*crow_rejected(c, i, k))
            return (long)i;
    for (size_t i = (size_t)first; i < crow_count(); i++)
        if (crow_canon(i) == (size_t)first && !*crow_rejected(c, i, k))
            return (long)i;
    return first;
}

/* A workload's element path: "workload." and its attribute or sub-element. */
static int is_wl_path(const char *path) { return strncmp(path, "workload.", 9) == 0; }

int crow_resolve(const cfg *c, const char *path, long *row, size_t *k, char *err, size_t errlen)
{
    *k = 0;
    long first = crow_find(path);
    if (first >= 0 && is_wl_path(path) && c->nwl > 1)
        return tn_error(err, errlen, "'%s': %zu workloads share this configuration; name one, e.g. "
                        "workload.%s.%s", path, c->nwl, c->wl[0].name, path + 9);
    if (first < 0 && is_wl_path(path)) {
        /* workload.<name>.<rest> */
        const char *nm = path + 9, *dot = strchr(nm, '.');
        if (dot) {
            char rest[CFG_PATH_MAX];
            snprintf(rest, sizeof rest, "workload.%s", dot + 1);
            long r = crow_find(rest);
            for (size_t w = 0; r >= 0 && w < c->nwl; w++)
                if (c->wl[w].name[0] && strlen(c->wl[w].name) == (size_t)(dot - nm) &&
                    strncmp(c->wl[w].name, nm, (size_t)(dot - nm)) == 0) {
                    *k = w;
                    *row = row_for(c, r, w);
                    return 0;
                }
            if (r >= 0)
                return tn_error(err, errlen, "'%s': no workload is named '%.*s'", path, (int)(dot - nm), nm);
        }
    }
    if (first < 0)
        return cfg_unknown_param(path, err, errlen);
    if (crow_is_wl((size_t)first) && !is_wl_path(path))
        *k = crow_wl_home(c, (size_t)first);
    *row = row_for(c, first, *k);
    return 0;
}

char *crow_path(const cfg *c, size_t i, size_t k)
{
    const char *path = crow_at(i)->row->path;
    if (crow_is_wl(i) && is_wl_path(path) && (c->nwl > 1 || (k < c->nwl && c->wl[k].name[0])))
        return cfg_format("workload.%s.%s", c->wl[k].name, path + 9);
    return tn_xstrdup(path);
}

int cfg_param_applies(const cfg *c, size_t i) { return crow_selected(c, i, crow_wl_home(c, i)); }

int cfg_param_applies_at(const cfg *c, size_t i, size_t k) { return crow_selected(c, i, k); }

size_t cfg_param_copies(const cfg *c, size_t i) { return crow_is_wl(i) ? c->nwl : 1; }

char *cfg_param_path_at(const cfg *c, size_t i, size_t k) { return crow_path(c, i, k); }

int cfg_param_get_at(const cfg *c, size_t i, size_t k, char *buf, size_t len)
{
    char *s = param_format(crow_block(c, i, k), crow_at(i)->row, NULL);
    int n = snprintf(buf, len, "%s", s);
    free(s);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

const char *crow_owner_name(size_t i)
{
    const cfg_param_info *p = crow_at(i);
    return p->plugin ? p->plugin : p->owner == CFG_OWN_PHY ? "the physical layer" : "the core";
}

size_t cfg_used_nets(const cfg *c, const net_ops **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; net_registry[i]; i++)
        if (used_somewhere(c, "network.type", c->net_type, net_registry[i]->name)) {
            if (n < max)
                out[n] = net_registry[i];
            n++;
        }
    return n;
}

int cfg_net_when_somewhere(const cfg *c, const char *plugin, const char *when)
{
    const char *eq = when ? strchr(when, '=') : NULL;
    if (!eq)
        return 1;
    for (size_t j = 0; j < crow_count(); j++) {
        const cfg_param_info *p = crow_at(j);
        if (p->owner != CFG_OWN_NET || !p->plugin || strcmp(p->plugin, plugin) != 0 ||
            strncmp(p->row->path, when, (size_t)(eq - when)) != 0 || p->row->path[eq - when] != '\0')
            continue;
        char base[256];
        if (cfg_param_get_at(c, j, 0, base, sizeof base) != 0)
            return 1;
        char *path = crow_path(c, j, 0);
        int holds = used_somewhere(c, path, base, eq + 1);
        free(path);
        return holds;
    }
    return 1;
}

size_t cfg_used_wls(const cfg *c, const wl_ops **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; wl_registry[i]; i++) {
        int used = 0;
        for (size_t k = 0; k < c->nwl && !used; k++) {
            char tp[PARAM_NAME_MAX + 32];
            wl_type_path(c, k, tp, sizeof tp);
            used = used_somewhere(c, tp, c->wl[k].type, wl_registry[i]->name) ||
                   (c->nwl == 1 && used_somewhere(c, "workload.type", c->wl[k].type, wl_registry[i]->name));
        }
        if (used) {
            if (n < max)
                out[n] = wl_registry[i];
            n++;
        }
    }
    return n;
}

const net_ops *cfg_net(const cfg *c) { return net_find(c->net_type); }
const wl_ops *cfg_wl(const cfg *c) { return cfg_wl_at(c, 0); }
const wl_ops *cfg_wl_at(const cfg *c, size_t k) { return k < c->nwl ? wl_find(c->wl[k].type) : NULL; }

void *cfg_net_params(const cfg *c)
{
    const net_ops *ops = cfg_net(c);
    return ops && c->net_block ? c->net_block[net_index(ops)] : NULL;
}

void *cfg_wl_params(const cfg *c) { return cfg_wl_params_at(c, 0); }

void *cfg_wl_params_at(const cfg *c, size_t k)
{
    const wl_ops *ops = cfg_wl_at(c, k);
    return ops && c->wl[k].block ? c->wl[k].block[wl_index(ops)] : NULL;
}

int cfg_wl_priority(const cfg *c, size_t k)
{
    const char *p = c->wl[k].priority;
    if (!p[0])
        return -1;
    if (strcmp(p, "high") == 0)
        return 0;
    if (strcmp(p, "low") == 0)
        return NET_PRIO_CLASSES - 1;
    return p[0] - '0';
}

int cfg_wl_exclusive(const cfg *c, size_t k)
{
    if (c->wl[k].exclusive)
        return c->wl[k].exclusive == 1;
    const wl_ops *ops = cfg_wl_at(c, k);
    return ops ? !ops->shares_nodes : 1;
}

/* ------------------------------------------------ defaults and copies */

static void wl_init(cfg_workload *w)
{
    memset(w, 0, sizeof *w);
    param_block_defaults(w, wl_inst_rows, sizeof wl_inst_rows / sizeof wl_inst_rows[0]);
    snprintf(w->type, sizeof w->type, "%s", wl_default->name);
    size_t nw = wl_count();
    w->block = tn_xcalloc(nw ? nw : 1, sizeof *w->block);
    for (size_t i = 0; i < nw; i++)
        w->block[i] = wl_params_new(wl_registry[i]);
}

static void wl_release(cfg_workload *w)
{
    if (w->block)
        for (size_t i = 0; wl_registry[i]; i++)
            wl_params_free(wl_registry[i], w->block[i]);
    free(w->block);
    w->block = NULL;
}

void cfg_defaults(cfg *c)
{
    build();
    memset(c, 0, sizeof *c);
    phy_params_defaults(&c->phy);
    param_block_defaults(c, core_rows, sizeof core_rows / sizeof core_rows[0]);
    snprintf(c->net_type, sizeof c->net_type, "%s", net_default->name);
    size_t nn = net_count();
    c->net_block = tn_xcalloc(nn ? nn : 1, sizeof *c->net_block);
    for (size_t i = 0; i < nn; i++)
        c->net_block[i] = net_params_new(net_registry[i]);
    c->nwl = 1;
    wl_init(&c->wl[0]);
    c->given = tn_xcalloc(CFG_MAX_WORKLOADS * CFG_MAX_ROWS, 1);
    c->rejected = tn_xcalloc(CFG_MAX_WORKLOADS * CFG_MAX_ROWS, 1);
    c->net.nodes = c->nodes;
}

long cfg_add_workload(cfg *c, const char *name, char *err, size_t errlen)
{
    if (c->nwl == CFG_MAX_WORKLOADS)
        return tn_error(err, errlen, "more than %d workloads", CFG_MAX_WORKLOADS);
    size_t k = c->nwl++;
    wl_init(&c->wl[k]);
    snprintf(c->wl[k].name, sizeof c->wl[k].name, "%s", name ? name : "");
    return (long)k;
}

void cfg_free(cfg *c)
{
    if (!c)
        return;
    if (c->net_block)
        for (size_t i = 0; net_registry[i]; i++)
            net_params_free(net_registry[i], c->net_block[i]);
    for (size_t k = 0; k < c->nwl; k++)
        wl_release(&c->wl[k]);
    free(c->net_block);
    free(c->given);
    free(c->rejected);
    free(c->pos);
    cfg_axes_free(c);
    memset(c, 0, sizeof *c);
}

void cfg_copy(cfg *dst, const cfg *src)
{
    *dst = *src;
    size_t nn = net_count(), nw = wl_count();
    dst->net_block = tn_xcalloc(nn ? nn : 1, sizeof *dst->net_block);
    for (size_t i = 0; i < nn; i++) {
        const net_ops *o = net_registry[i];
        dst->net_block[i] = tn_xcalloc(1, o->params_size ? o->params_size : 1);
        param_block_copy(dst->net_block[i], src->net_block[i], o->params_size, o->params, o->nparams);
    }
    for (size_t k = 0; k < src->nwl; k++) {
        dst->wl[k].block = tn_xcalloc(nw ? nw : 1, sizeof *dst->wl[k].block);
        for (size_t i = 0; i < nw; i++) {
            const wl_ops *o = wl_registry[i];
            dst->wl[k].block[i] = tn_xcalloc(1, o->params_size ? o->params_size : 1);
            param_block_copy(dst->wl[k].block[i], src->wl[k].block[i], o->params_size, o->params, o->nparams);
        }
    }
    dst->given = tn_xmalloc(CFG_MAX_WORKLOADS * CFG_MAX_ROWS);
    memcpy(dst->given, src->given, CFG_MAX_WORKLOADS * CFG_MAX_ROWS);
    dst->rejected = tn_xmalloc(CFG_MAX_WORKLOADS * CFG_MAX_ROWS);
    memcpy(dst->rejected, src->rejected, CFG_MAX_WORKLOADS * CFG_MAX_ROWS);
    dst->pos = src->npos ? tn_xmalloc(src->npos * sizeof *dst->pos) : NULL;
    if (src->npos)
        memcpy(dst->pos, src->pos, src->npos * sizeof *dst->pos);
    for (size_t a = 0; a < src->naxes; a++) {
        dst->axes[a].values = tn_xmalloc((src->axes[a].nvalues ? src->axes[a].nvalues : 1) * sizeof(char *));
        for (size_t v = 0; v < src->axes[a].nvalues; v++)
            dst->axes[a].values[v] = tn_xstrdup(src->axes[a].values[v]);
    }
}

/* ------------------------------------------------------------ axes */

/* The axis over path, or -1. */
int cfg_axis_of(const cfg *c, const char *path)
{
    for (size_t a = 0; a < c->naxes; a++)
        if (strcmp(c->axes[a].param, path) == 0)
            return (int)a;
    return -1;
}

/* Release the axes' values (c->naxes = 0). */
void cfg_axes_free(cfg *c)
{
    for (size_t a = 0; a < c->naxes; a++) {
        for (size_t v = 0; v < c->axes[a].nvalues; v++)
            free(c->axes[a].values[v]);
        free(c->axes[a].values);
    }
    c->naxes = 0;
}

/* ------------------------------------------------------------ set, get */

/* Why no owner of canon takes value (every one refused it), into err: the
 * message of the owner c selects (its network.type's); when c selects none
 * (a fabric without the parameter), every owner's, named, where they differ
 * (network.routing: each topology its own choices), not the first's as if
 * it were c's. */
static void refusal(const cfg *c, size_t canon, size_t k, const char *value, char *err, size_t errlen)
{
    param_value pv;
    for (size_t i = canon; i < crow_count(); i++)
        if (crow_canon(i) == canon && crow_selected(c, i, k)) {
            if (param_parse(crow_at(i)->row, value, c->basedir, &pv, err, errlen) == 0)
                param_value_free(&pv); /* not reached: every owner refused it */
            return;
        }
    char first[1024], e2[1024];
    if (param_parse(crow_at(canon)->row, value, c->basedir, &pv, first, sizeof first) == 0)
        param_value_free(&pv);
    int same = 1;
    for (size_t i = canon + 1; i < crow_count() && same; i++)
        if (crow_canon(i) == canon) {
            if (param_parse(crow_at(i)->row, value, c->basedir, &pv, e2, sizeof e2) == 0)
                param_value_free(&pv);
            same = strcmp(e2, first) == 0;
        }
    if (same) {
        tn_error(err, errlen, "%s", first);
        return;
    }
    size_t len = (size_t)snprintf(err, errlen, "none of its owners takes it:");
    for (size_t i = canon; i < crow_count() && len < errlen; i++)
        if (crow_canon(i) == canon) {
            if (param_parse(crow_at(i)->row, value, c->basedir, &pv, e2, sizeof e2) == 0)
                param_value_free(&pv);
            len += (size_t)snprintf(err + len, errlen - len, "%s %s: %s", i == canon ? "" : ";", crow_owner_name(i), e2);
        }
}

int crow_parse_any(const cfg *c, size_t canon, size_t k, const char *value, char *err, size_t errlen)
{
    for (size_t i = canon; i < crow_count(); i++) {
        param_value pv;
        char e2[1024];
        if (crow_canon(i) == canon && param_parse(crow_at(i)->row, value, c->basedir, &pv, e2, sizeof e2) == 0) {
            param_value_free(&pv);
            return 0;
        }
    }
    refusal(c, canon, k, value, err, errlen);
    return -1;
}

int crow_set(cfg *c, size_t canon, size_t k, const char *value, char *err, size_t errlen)
{
    size_t n = crow_count();
    /* parse for every owner first, so a failure changes nothing. One value
     * per owner of the path, not per row: a param_value is 1.7 kB and there
     * are 178 rows, so a value per row zeroed 300 kB per --set and per
     * swept parameter of every run (callgrind: 1.5% of spinet-load). An
     * owner that refuses a value another takes (choices of its own) keeps
     * its value, marked rejected; only a value no owner takes fails. */
    size_t owners = 0;
    for (size_t i = canon; i < n; i++)
        owners += crow_canon(i) == canon;
    param_value *vals = tn_xcalloc(owners, sizeof *vals);
    unsigned char *ok = tn_xcalloc(owners, 1);
    size_t nok = 0;
    for (size_t i = canon, j = 0; i < n; i++) {
        if (crow_canon(i) != canon)
            continue;
        char e2[1024];
        ok[j] = param_parse(crow_at(i)->row, value, c->basedir, &vals[j], e2, sizeof e2) == 0;
        nok += ok[j];
        j++;
    }
    for (size_t i = canon, j = 0; i < n; i++) {
        if (crow_canon(i) != canon)
            continue;
        if (nok && ok[j])
            param_store(crow_block(c, i, k), crow_at(i)->row, &vals[j]);
        if (nok)
            *crow_rejected(c, i, k) = !ok[j];
        param_value_free(&vals[j++]);
    }
    free(vals);
    free(ok);
    if (!nok) {
        refusal(c, canon, k, value, err, errlen);
        return -1;
    }
    *crow_given(c, canon, k) = 1;
    /* the alternative of every plugin that declares the path (workload.duration
     * excludes uniform-random's workload.messages and dc-flows' workload.flows) */
    for (size_t j = canon; j < n; j++) {
        if (crow_canon(j) != canon)
            continue;
        const char *alt = crow_at(j)->row->alt;
        long a = alt ? crow_find(alt) : -1;
        if (a < 0)
            continue;
        /* the alternative of a workload's row outside <workload> (network.zeta) is its home workload's */
        size_t ka = crow_is_wl((size_t)a) ? (crow_is_wl(canon) ? k : crow_wl_home(c, (size_t)a)) : 0;
        for (size_t i = (size_t)a; i < n; i++)
            if (crow_canon(i) == (size_t)a) {
                param_clear(crow_block(c, i, ka), crow_at(i)->row);
                *crow_rejected(c, i, ka) = 0;
            }
        *crow_given(c, (size_t)a, ka) = 0;
    }
    c->net.nodes = c->nodes;
    return 0;
}

/* The file position of canonical row canon of workload k, or NULL. */
static cfg_pos *pos_of(const cfg *c, size_t canon, size_t k)
{
    k = crow_is_wl(canon) ? k : 0;
    for (size_t i = 0; i < c->npos; i++)
        if (c->pos[i].canon == canon && c->pos[i].k == k)
            return &c->pos[i];
    return NULL;
}

void crow_set_pos(cfg *c, size_t canon, size_t k, long line, long col)
{
    cfg_pos *p = pos_of(c, canon, k);
    if (!p) {
        c->pos = tn_xrealloc(c->pos, (c->npos + 1) * sizeof *c->pos);
        p = &c->pos[c->npos++];
    }
    *p = (cfg_pos){.k = (uint32_t)(crow_is_wl(canon) ? k : 0), .canon = (uint32_t)canon,
                   .line = line > 0 ? (uint32_t)line : 0, .col = col > 0 ? (uint32_t)col : 0};
}

int cfg_set(cfg *c, const char *path, const char *value, char *err, size_t errlen)
{
    long r;
    size_t k;
    if (crow_resolve(c, path, &r, &k, err, errlen) != 0)
        return -1;
    size_t canon = crow_canon((size_t)r);
    if (crow_set(c, canon, k, value ? value : "", err, errlen) != 0)
        return -1;
    /* no longer the file's value */
    cfg_pos *p = pos_of(c, canon, k);
    if (p)
        p->line = p->col = 0;
    return 0;
}

int cfg_where(const cfg *c, const char *path, char *buf, size_t len)
{
    long r;
    size_t k;
    char err[512];
    if (len)
        buf[0] = '\0';
    if (crow_resolve(c, path, &r, &k, err, sizeof err) != 0)
        return 0;
    size_t canon = crow_canon((size_t)r);
    /* swept: the axis (an axis names the path as resolve does) */
    for (size_t a = 0; a < c->naxes; a++) {
        long ra;
        size_t ka;
        if (crow_resolve(c, c->axes[a].param, &ra, &ka, err, sizeof err) == 0 && crow_canon((size_t)ra) == canon &&
            (!crow_is_wl(canon) || ka == k)) {
            if (!c->axes[a].line || !c->file[0])
                return 0;
            snprintf(buf, len, "%s:%u:%u", c->file, c->axes[a].line, c->axes[a].col);
            return 2;
        }
    }
    const cfg_pos *p = pos_of(c, canon, k);
    if (!p || !p->line || !*crow_given(c, canon, k) || !c->file[0])
        return 0;
    snprintf(buf, len, "%s:%u:%u", c->file, p->line, p->col);
    return 1;
}

int cfg_get(const cfg *c, const char *path, char *buf, size_t len)
{
    long r;
    size_t k;
    char err[512];
    if (crow_resolve(c, path, &r, &k, err, sizeof err) != 0) {
        if (len)
            buf[0] = '\0';
        return -1;
    }
    return cfg_param_get_at(c, (size_t)r, k, buf, len);
}

uint64_t cfg_input_digest(const cfg *c, const char *path)
{
    long r;
    size_t k;
    char err[512];
    if (crow_resolve(c, path, &r, &k, err, sizeof err) != 0)
        return 0;
    return cfg_input_digest_at(c, (size_t)r, k);
}

uint64_t cfg_input_digest_at(const cfg *c, size_t i, size_t k)
{
    return param_digest(crow_block(c, i, k), crow_at(i)->row);
}

/* ------------------------------------------------------------- hints */

char *celem_hint(int e)
{
    const celem *ce = celem_at((size_t)e);
    if (e == CE_ROOT)
        return tn_xstrdup("<tasknet version=\"1\">");
    if (e == celem_axis())
        return tn_xstrdup("<axis param=\"...\" values=\"...\"/>");
    if (e == celem_value())
        return tn_xstrdup("<value>...</value>");
    if (!ce->prefix[0])
        return cfg_format("<%s>", ce->name);
    /* its required attributes, or else its first, with their examples */
    size_t len = 0, cap = 256;
    char *s = tn_xmalloc(cap);
    len = (size_t)snprintf(s, cap, "e.g. <%s", ce->name);
    int any = 0;
    for (int pass = 0; pass < 2 && !any; pass++)
        for (size_t i = 0; i < crow_count(); i++) {
            const param_row *r = crow_at(i)->row;
            if (crow_canon(i) != i || crow_elem(i) != e || !r->example)
                continue;
            if (pass == 0 && !(r->flags & PARAM_REQUIRED))
                continue;
            char *a = cfg_format(" %s=\"%s\"", param_attr(r), r->example);
            size_t l = strlen(a);
            if (len + l + 4 > cap) {
                cap = 2 * (len + l + 4);
                s = tn_xrealloc(s, cap);
            }
            memcpy(s + len, a, l + 1);
            len += l;
            free(a);
            any = 1;
            if (pass == 1)
                break;
        }
    if (len + 4 > cap)
        s = tn_xrealloc(s, len + 4);
    memcpy(s + len, "/>", 3);
    return s;
}

/* ----------------------------------------------------------- helpers */

char *cfg_vformat(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        n = 0;
    char *s = tn_xmalloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

char *cfg_format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = cfg_vformat(fmt, ap);
    va_end(ap);
    return s;
}

void cfg_errors_init(cfg_errors *e)
{
    e->msg = NULL;
    e->n = e->cap = 0;
}

void cfg_errors_free(cfg_errors *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->msg[i]);
    free(e->msg);
    cfg_errors_init(e);
}

void cfg_errors_push(cfg_errors *e, char *msg)
{
    if (e->n == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 8;
        e->msg = tn_xrealloc(e->msg, e->cap * sizeof *e->msg);
    }
    e->msg[e->n++] = msg;
}

void cfg_errors_add(cfg_errors *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cfg_errors_push(e, cfg_vformat(fmt, ap));
    va_end(ap);
}

/* Edit distance, for "did you mean"; long words are never close. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return SIZE_MAX;
    size_t prev[64], cur[64];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t m = del < ins ? del : ins;
            cur[j] = m < sub ? m : sub;
        }
        memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
    }
    return prev[lb];
}

const char *cfg_closest(const char *word, const char *const *cands, size_t n)
{
    const char *best = NULL;
    size_t bestd = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        size_t d = edit_distance(word, cands[i]);
        if (d < bestd) {
            bestd = d;
            best = cands[i];
        }
    }
    size_t len = strlen(word), limit = len < 6 ? 2 : len / 3;
    return best && bestd <= limit ? best : NULL;
}

char *cfg_join(const char *const *items, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(items[i]) + 2;
    char *s = tn_xmalloc(len);
    s[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (i)
            strcat(s, ", ");
        strcat(s, items[i]);
    }
    return s;
}

int cfg_unknown_param(const char *path, char *err, size_t errlen)
{
    size_t n = crow_count(), k = 0;
    const char **paths = tn_xmalloc(n * sizeof *paths);
    for (size_t i = 0; i < n; i++)
        if (crow_canon(i) == i)
            paths[k++] = crow_at(i)->row->path;
    const char *near = cfg_closest(path, paths, k);
    if (near) {
        tn_error(err, errlen, "unknown parameter '%s' (did you mean %s?)", path, near);
    } else {
        char *all = cfg_join(paths, k);
        tn_error(err, errlen, "unknown parameter '%s' (parameters: %s)", path, all);
        free(all);
    }
    free(paths);
    return -1;
}
