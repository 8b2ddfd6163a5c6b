/* The configuration: every rejected input kind (a fixture each) fails with
 * its exact file:line:col, the paper's configurations load with the
 * paper's values, --set overrides, sweep expansion and the write/read round
 * trip. Positions were counted by hand in the fixtures (1-based columns, in
 * characters, of the attribute's name or of the element's '<'). */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "dist.h"
#include "net_spinet.h"
#include "run.h"
#include "wl_task_tree.h"
#include "harness.h"

/* The plugins' own params of a configuration (their tests may name them). */
#define TT(cp) ((const tasktree_params *)(cp)->wl[0].block[wl_index(&wl_task_tree_ops)])
#define SPN(cp) ((const spn_params *)(cp)->net_block[net_index(&net_spinet_ops)])

static const char *srcdir(void)
{
    const char *s = getenv("top_srcdir");
    return s && *s ? s : "..";
}

static void path_of(char *buf, size_t len, const char *rel)
{
    snprintf(buf, len, "%s/%s", srcdir(), rel);
}

/* Load a file that must be valid; prints the errors otherwise. */
static void load_ok(cfg *c, const char *rel)
{
    char p[1024];
    path_of(p, sizeof p, rel);
    cfg_errors e;
    cfg_errors_init(&e);
    int rc = cfg_load(c, p, &e);
    ck_assert_msg(rc == 0 && e.n == 0, "%s: %s", rel, e.n ? e.msg[0] : "(no message)");
    cfg_errors_free(&e);
}

static void get_eq(const cfg *c, const char *path, const char *want)
{
    char buf[1024];
    ck_assert_int_eq(cfg_get(c, path, buf, sizeof buf), 0);
    ck_assert_msg(strcmp(buf, want) == 0, "%s = '%s', expected '%s'", path, buf, want);
}

/* ------------------------------------------------------------ rejected */

typedef struct bad_case {
    const char *file;   /* under tests/fixtures/bad/ */
    int line, col;      /* of the first error */
    const char *words[3]; /* must all appear in the first error */
} bad_case;

static const bad_case bad_cases[] = {
    /* <netwrk at line 3, its '<' in column 3 */
    {"unknown_element.xml", 3, 3, {"unknown element <netwrk> in <tasknet>", "did you mean <network>", "expected one of: system, network, transport, workload, run, sweep"}},
    /* "  <network type=\"electrical-switch\" " is 36 characters: bandwth at 37 */
    {"unknown_attribute.xml", 3, 37, {"<network bandwth=\"10Gb/s\">: unknown attribute", "did you mean bandwidth", "expected one of: type, bandwidth, switch-latency"}},
    /* the start tag continues on line 4, "           " = 11 blanks: column 12 */
    {"missing_unit.xml", 4, 12, {"<network bandwidth=\"40\">: missing unit (e.g. 40Gb/s)", NULL, NULL}},
    {"wrong_unit_kind.xml", 3, 37, {"<network bandwidth=\"200ns\">", "is a time, expected a rate", NULL}},
    /* link-latency follows bandwidth="10Gb/s" (18 characters + a blank): 37 + 19 = 56 */
    {"negative_value.xml", 3, 56, {"<network link-latency=\"-20ns\">: must not be negative", NULL, NULL}},
    /* "  <workload type=\"task-tree\" " is 29 characters */
    {"zero_jobs.xml", 4, 30, {"<workload jobs=\"0\">: must be at least 1", NULL, NULL}},
    {"zero_bandwidth.xml", 3, 37, {"<network bandwidth=\"0Gb/s\">: must be greater than 0", NULL, NULL}},
    /* "    <task " is 10 characters */
    {"malformed_distribution.xml", 6, 11, {"<task init-time=\"unifrm(2us,100us)\">", "malformed distribution", "unknown function 'unifrm'"}},
    /* after init-time="10us" (16 characters + a blank): 11 + 17 = 28 */
    {"negative_distribution.xml", 6, 28, {"<task aggregation-time=\"uniform(-2us,100us)\">", "can draw -2us", "must not be negative"}},
    /* "    <tree generator=\"deterministic\" " is 36 characters */
    {"z_zero.xml", 5, 37, {"<tree z=\"4 0 3\">", "z contains 0 at position 2: every level needs at least one child", NULL}},
    /* "  <system " is 10 characters */
    {"nodes_below_two.xml", 2, 11, {"<system nodes=\"1\">: must be at least 2", "a network connects at least 2 nodes", NULL}},
    /* reported at the second of the pair, zeta, 37 + 19 */
    {"bandwidth_and_zeta.xml", 3, 56, {"<network zeta=\"2\">", "give either bandwidth or zeta, not both", NULL}},
    /* at the <workload> that lacks it */
    {"missing_task.xml", 4, 3, {"<workload>: missing <task> element", "e.g. <task init-time=\"10us\" aggregation-time=\"10us\" send-size=\"20kB\" result-size=\"40kB\"/>", NULL}},
    {"missing_system.xml", 1, 1, {"<tasknet>: missing <system> element", NULL, NULL}},
    {"missing_generator_param.xml", 5, 5, {"<tree>: missing attribute vertices", "preferential", NULL}},
    {"no_rate.xml", 4, 3, {"<workload>: missing attribute arrival-rate or load", NULL, NULL}},
    /* "  <network " is 11 characters */
    {"unknown_network_type.xml", 3, 12, {"<network type=\"optical-magic\">", "unknown network type 'optical-magic'", "electrical-switch"}},
    /* second axis, line 10; "    <axis " is 10 characters */
    {"sweep_unknown_param.xml", 10, 11, {"<axis param=\"network.bandwith\">", "unknown parameter", "did you mean network.bandwidth"}},
    /* at the values attribute: "    <axis param=\"network.bandwidth\" " is 36 characters */
    {"sweep_bad_value.xml", 10, 37, {"<axis param=\"network.bandwidth\">: value '10'", "missing unit", NULL}},
    /* send-size after init-time (17) and aggregation-time (24): 11 + 41 = 52;
     * the message names the file looked up next to the configuration */
    /* a template's placeholder (check_cli test_set_before_checks: --set workload.file=... runs it);
     * "  <workload type=\"dag\" " is 23 characters */
    /* "  <workload type=\"dc-flows\" " is 28 characters */
    {"flow_list_unreadable.xml", 8, 29, {"<workload flow-list=\"no-such-flows.csv\">", "cannot read 'no-such-flows.csv'", NULL}},
    {"placeholder_file.xml", 7, 24, {"<workload file=\"GRAPH.dot\">", "cannot read 'GRAPH.dot'", "no data file"}},
    {"empirical_missing_file.xml", 6, 52, {"<task send-size=\"empirical(no-such-file.csv)\">", "fixtures/bad/no-such-file.csv", "No such file or directory"}},
    {"not_xml.xml", 1, 1, {"not an XML document", "Start tag expected", NULL}},
    {"empty_file.xml", 1, 1, {"not an XML document", "Document is empty", NULL}},
    /* <tree ...> never closed: the parser notices at </workload>, line 7 column 14 */
    {"unclosed_tag.xml", 7, 14, {"malformed XML", "tag mismatch: tree line 5 and workload", NULL}},
    {"wrong_root.xml", 1, 1, {"root element is <config>, expected <tasknet", NULL, NULL}},
    /* only the schema checks text content */
    {"text_content.xml", 2, 3, {"<system>: unexpected text 'eight'", NULL, NULL}},
    {"cdata_text.xml", 1, 1, {"<tasknet>: unexpected text '<system nodes=\"9\"/>'", NULL, NULL}},
    {"duplicate_element.xml", 4, 3, {"<system> given twice in <tasknet> (first at line 2)", NULL, NULL}},
    /* "<tasknet " is 9 characters */
    {"bad_version.xml", 1, 10, {"<tasknet version=\"2\">: unsupported version", NULL, NULL}},
    {"bad_choice.xml", 3, 56, {"<network switching=\"bufferless\">", "expected one of: cut-through, store-and-forward, wormhole", NULL}},
    /* comment, DOCTYPE and entity before it do not shift the count:
     * "  <run replicas=\"2\" " is 20 characters */
    {"tricky_markup.xml", 11, 21, {"<run seed=\"x1\">", "'x1' is not a number", NULL}},
    /* two "µ" (2 bytes each) before it on the line: columns count characters.
     * 11 + 17 (init-time="10µs" ) + 24 (aggregation-time="10µs" ) + 17 (send-size="20kB" ) = 69 */
    {"utf8_column.xml", 6, 69, {"<task result-size=\"-40kB\">: must not be negative", NULL, NULL}},
    /* a byte-order mark and CRLF line ends do not shift columns */
    {"bom_crlf.xml", 2, 11, {"<system nodes=\"1\">: must be at least 2", NULL, NULL}},
    /* elements hidden in an entity would escape every check: refused */
    {"entity_markup.xml", 2, 1, {"<tasknet>: entity reference &r; in element content", NULL, NULL}},
    /* run.confidence is a level in (0, 1): "  <run replicas=\"10\" " is 21 characters */
    {"bad_confidence.xml", 5, 22, {"<run confidence=\"1.5\">", "must be between 0 and 1 (e.g. 0.99), not 1.5", NULL}},
    /* the kernel and pattern workloads' own checks, at their attributes */
    {"kernel_wave_too_big.xml", 4, 88, {"<workload wave=\"200\">: wave (200) is larger than total-messages (100)", NULL, NULL}},
    {"pattern_too_many_tasks.xml", 4, 44, {"<workload tasks=\"40\">: more tasks than system nodes (32)", NULL, NULL}},
    {"ptrnvsptrn_no_foreground.xml", 4, 3, {"<workload>: missing <foreground> element", NULL, NULL}},
    {"pattern_receivers_too_many.xml", 4, 48, {"<workload receivers=\"9\">", "r = 9 must be at most floor(C/2) = 8", NULL}},
    /* "    <axis param=\"network.bandwidth\" " is 36 characters */
    {"sweep_with_unknown.xml", 10, 37, {"<axis with=\"network.type\">", "no earlier axis sweeps 'network.type'", NULL}},
    {"sweep_with_length.xml", 10, 37, {"<axis with=\"system.nodes\">", "this axis has 2 values and the axis of system.nodes has 3", NULL}},
    /* "    <phy " is 9 characters; ber-target and laser-efficiency follow (test_follow_on_errors) */
    {"phy_range.xml", 4, 10, {"<phy crosstalk=\"3dB\">", "3dB: the leak must be below the signal, < 0dB", NULL}},
    /* "    <axis param=\"system.nodes\" " is 31 characters; the axis following it
     * is not blamed for its lead's mistake (test_follow_on_errors) */
    {"sweep_with_failed_lead.xml", 9, 32, {"<axis param=\"system.nodes\">: value 'eight'", NULL, NULL}},
    /* "    <axis " is 10 characters */
    {"sweep_run_param.xml", 9, 11, {"<axis param=\"run.replicas\">", "run.replicas cannot be swept", "--replicas"}},
    /* a failure during the run loses packets: a transport must recover them.
     * "  <network type=\"fat-tree\" arity=\"4\" levels=\"2\" bandwidth=\"10Gb/s\" failed-links=\"S0-S4\" " is 88 */
    {"fail_at_no_transport.xml", 3, 89, {"<network fail-at=\"20us\">", "the workload's transport is none: a transport must recover them", NULL}},
    /* finite buffers and host queues drop too: refused at validate, at the attribute (net_ops.lossy) */
    {"buffer_no_transport.xml", 3, 68, {"<network buffer=\"100kB\">", "finite buffers drop packets, and the workload's transport is none", NULL}},
    {"host_buffer_no_transport.xml", 3, 56, {"<network host-buffer=\"100kB\">", "host queues drop the messages that do not fit, and workload web's transport is none", NULL}},
    /* torus valiant (and romm) with failed links: refused by the torus's check, not an internal error in
     * the memory estimate's build of the failed fabric (topo_fail's walks of the torus's alternative records,
     * which carry no intermediate). "  <network type=\"torus\" dims=\"4 4\" bandwidth=\"10Gb/s\" routing=\"valiant\" " is 72 */
    /* a routing of another fabric: refused where the torus runs, listing the torus's own choices (topo.h);
     * "  <network type=\"torus\" dims=\"4 4\" bandwidth=\"10Gb/s\" " is 54 characters */
    {"routing_other_fabric.xml", 3, 55, {"<network routing=\"ugal\">: the torus does not take 'ugal'",
                                         "unknown value (expected one of: default, dor, adaptive, valiant, romm)", NULL}},
    /* a value a sweep axis sends, refused at its point: at the axis's param attribute ("    <axis " is 10
     * characters), naming the value and the point; the first error in file order is the workload's own
     * measure="window" at its attribute ("  <workload " 12 + type 22 + message-size 19 + offered-load 19 +
     * duration 17 characters = 89); test_sweep_refusals_at_axis asserts every error */
    {"sweep_value_refused.xml", 4, 90, {"<workload measure=\"window\">", "foreground", NULL}},
    {"torus_valiant_failed.xml", 3, 73, {"<network failed-links=\"S0-S1\">", "routing=valiant on a torus does not route around failed links", NULL}},
    /* a graph whose routes need 2 VC classes: congestion isolation refused by validate, not first at run (review6) */
    /* hpcc on routings that pick a path packet by packet (README, transport section):
     * "  <network type=\"fat-tree\" arity=\"4\" levels=\"2\" bandwidth=\"100Gb/s\" flow-control=\"pfc\" " is 87 */
    {"hpcc_per_packet_routing.xml", 3, 88, {"<network routing=\"anca\">", "transport hpcc needs one path per flow: routing=anca picks a path packet by packet", "go-back-N"}},
    /* dctcp's variant ns-3 (tp_dctcp.c) elsewhere: "  <transport type=\"tcp\" " is 24 characters, with
     * type=\"dctcp\" sack=\"on\" 36 */
    {"variant_tcp.xml", 4, 25, {"<transport variant=\"ns-3\">", "ns-3 is a variant of dctcp only", "not of transport type tcp"}},
    {"variant_sack.xml", 4, 37, {"<transport variant=\"ns-3\">", "with SACK off", "not with transport.sack=\"on\""}},
    {"hpcc_ugal.xml", 3, 118, {"<network routing=\"ugal\">", "routing=ugal picks a path packet by packet", "(minimal or valiant)"}},
    {"ci_graph_vcs.xml", 7, 83, {"<network congestion-isolation=\"destination\">", "ci_graph_vcs.dot routes with 2 deadlock classes", NULL}},
    /* a fabric's parameter where no point uses that fabric: 37 + 19 */
    {"not_applying.xml", 3, 56, {"<network extra-stages=\"1\">", "applies to spinet, and network.type is electrical-switch", NULL}},
    {"spinet_control_first.xml", 3, 56, {"<network priority=\"control-first\">", "applies to electrical-switch, torus, fat-tree, leaf-spine, dragonfly, graph, and network.type is spinet", NULL}},
    /* several workloads: "  <workload " is 12 characters; the second one lacks its name */
    {"workload_unnamed.xml", 8, 3, {"<workload>: missing attribute name", "several workloads share this configuration", NULL}},
    {"workload_same_name.xml", 5, 13, {"<workload name=\"a\">: 'a' names two workloads", NULL, NULL}},
    /* after name="b" type="task-tree" (9 + 1 + 16 + 1 characters): 13 + 26 */
    {"workload_nodes_overlap.xml", 8, 39, {"<workload nodes=\"4-11\">", "node 4 is given to two exclusive workloads", NULL}},
    /* after name="a" type="uniform-random" (9 + 1 + 21 + 1): 13 + 31 */
    {"workload_only_background.xml", 4, 44, {"<workload role=\"background\">", "every workload is a background one", NULL}},
    /* a background stops once every foreground workload has finished: the
     * kernel cannot tell, even beside one that can */
    {"workload_background_silent_foreground.xml", 6, 22, {"<workload type=\"kernel\">", "cannot tell when it has finished", NULL}},
    {"sweep_unknown_workload.xml", 7, 11, {"<axis param=\"workload.c.offered-load\">", "no workload is named 'c'", NULL}},
    /* seven problems, all reported (see test_multiple_errors) */
    {"multiple_errors.xml", 2, 11, {"<system nodes=\"1\">", NULL, NULL}},
};

#define NBAD (sizeof bad_cases / sizeof bad_cases[0])

START_TEST(test_bad_fixture)
{
    const bad_case *b = &bad_cases[_i];
    char rel[256], p[1024], where[1100];
    snprintf(rel, sizeof rel, "tests/fixtures/bad/%s", b->file);
    path_of(p, sizeof p, rel);
    cfg c;
    cfg_errors e;
    cfg_errors_init(&e);
    ck_assert_int_eq(cfg_load(&c, p, &e), -1);
    ck_assert_msg(e.n >= 1, "%s: no error reported", b->file);
    snprintf(where, sizeof where, "%s:%d:%d: error: ", p, b->line, b->col);
    ck_assert_msg(strncmp(e.msg[0], where, strlen(where)) == 0, "%s: first error '%s', expected it to start with '%s'",
                  b->file, e.msg[0], where);
    for (int k = 0; k < 3 && b->words[k]; k++)
        ck_assert_msg(strstr(e.msg[0], b->words[k]) != NULL, "%s: '%s' lacks '%s'", b->file, e.msg[0], b->words[k]);
    cfg_errors_free(&e);
    cfg_free(&c);
}
END_TEST

/* Every fixture in bad/ is in the table above (so each is asserted). */
START_TEST(test_every_fixture_listed)
{
    char p[1024];
    path_of(p, sizeof p, "tests/fixtures/bad");
    DIR *d = opendir(p);
    ck_assert_ptr_nonnull(d);
    struct dirent *de;
    size_t seen = 0;
    while ((de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);
        if (n < 5 || strcmp(de->d_name + n - 4, ".xml") != 0)
            continue;
        int found = 0;
        for (size_t i = 0; i < NBAD; i++)
            found |= strcmp(bad_cases[i].file, de->d_name) == 0;
        ck_assert_msg(found, "fixture %s is not asserted by check_config", de->d_name);
        seen++;
    }
    closedir(d);
    ck_assert_uint_eq(seen, NBAD);
}
END_TEST

/* A rejected value is the only error its workload's own requirements
 * report: a flow list that cannot be read does not also ask for the
 * duration, load and sizes a generated workload would need; with the list
 * taken away (--set workload.flow-list=, which replaces the file's value),
 * those three are asked for. */
START_TEST(test_rejected_value_alone)
{
    char p[1024];
    path_of(p, sizeof p, "tests/fixtures/bad/flow_list_unreadable.xml");
    cfg c;
    cfg_errors e;
    cfg_errors_init(&e);
    ck_assert_int_eq(cfg_load(&c, p, &e), -1);
    ck_assert_msg(e.n == 1, "%zu errors, the first: %s", e.n, e.n ? e.msg[0] : "");
    ck_assert_ptr_nonnull(strstr(e.msg[0], "cannot read 'no-such-flows.csv'"));
    cfg_errors_free(&e);
    cfg_free(&c);
    cfg_errors_init(&e);
    static const cfg_cli_value none[] = {{"workload.flow-list", "", "--set workload.flow-list="}};
    ck_assert_int_eq(cfg_load_with(&c, p, none, 1, &e), -1);
    int dur = 0, load = 0, sizes = 0;
    for (size_t i = 0; i < e.n; i++) {
        dur |= strstr(e.msg[i], "missing attribute duration") != NULL;
        load |= strstr(e.msg[i], "missing attribute load") != NULL;
        sizes |= strstr(e.msg[i], "missing attribute sizes") != NULL;
    }
    ck_assert_msg(e.n == 3 && dur && load && sizes, "%zu errors, the first: %s", e.n, e.n ? e.msg[0] : "");
    cfg_errors_free(&e);
    cfg_free(&c);
}
END_TEST

/* multiple_errors.xml holds seven independent mistakes; each is reported at
 * its place, in file order. */
START_TEST(test_multiple_errors)
{
    char p[1024];
    path_of(p, sizeof p, "tests/fixtures/bad/multiple_errors.xml");
    cfg c;
    cfg_errors e;
    cfg_errors_init(&e);
    ck_assert_int_eq(cfg_load(&c, p, &e), -1);
    static const struct {
        int line, col;
        const char *word;
    } want[] = {
        {2, 11, "nodes=\"1\""},          {3, 37, "missing unit"},
        {3, 52, "link-latency"},         {4, 30, "jobs=\"0\""},
        {5, 37, "z contains 0 at position 2"}, {6, 28, "unknown unit 's/s'"},
        {8, 8, "<run replicas=\"0\">: must be at least 1"},
    };
    size_t nw = sizeof want / sizeof want[0];
    ck_assert_uint_eq(e.n, nw);
    for (size_t i = 0; i < nw; i++) {
        char where[1100];
        snprintf(where, sizeof where, "%s:%d:%d: error: ", p, want[i].line, want[i].col);
        ck_assert_msg(strncmp(e.msg[i], where, strlen(where)) == 0, "error %zu: '%s' (expected at %s)", i,
                      e.msg[i], where);
        ck_assert_msg(strstr(e.msg[i], want[i].word) != NULL, "error %zu: '%s' lacks '%s'", i, e.msg[i],
                      want[i].word);
    }
    cfg_errors_free(&e);
    cfg_free(&c);
}
END_TEST

/* Each mistake once: the three phy ranges at their own attributes, and no
 * "no earlier axis" error for an axis whose lead was itself rejected. */
START_TEST(test_follow_on_errors)
{
    static const struct {
        const char *file;
        size_t n;
        const char *last;
    } want[] = {
        {"tests/fixtures/bad/phy_range.xml", 3, ":4:43: error: <phy laser-efficiency=\"1.5\">: 1.5: a wall-plug efficiency is at most 1"},
        {"tests/fixtures/bad/sweep_with_failed_lead.xml", 1, "'eight'"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char p[1024];
        path_of(p, sizeof p, want[i].file);
        cfg c;
        cfg_errors e;
        cfg_errors_init(&e);
        ck_assert_int_eq(cfg_load(&c, p, &e), -1);
        ck_assert_msg(e.n == want[i].n, "%s: %zu errors, expected %zu; first: %s", want[i].file, e.n,
                      want[i].n, e.msg[0]);
        ck_assert_msg(strstr(e.msg[e.n - 1], want[i].last) != NULL, "%s: last error '%s' lacks '%s'",
                      want[i].file, e.msg[e.n - 1], want[i].last);
        cfg_errors_free(&e);
        cfg_free(&c);
    }
}
END_TEST

/* 150 unknown attributes: the first 100 errors are reported, the other 50
 * counted in one last line. */
START_TEST(test_error_cap)
{
    char path[] = "/tmp/tasknet-cap-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs("<tasknet version=\"1\">\n  <system nodes=\"8\"", f);
    for (int i = 0; i < 150; i++)
        fprintf(f, " x%d=\"1\"", i);
    fputs("/>\n</tasknet>\n", f);
    fclose(f);
    cfg c;
    cfg_errors e;
    cfg_errors_init(&e);
    ck_assert_int_eq(cfg_load(&c, path, &e), -1);
    ck_assert_uint_eq(e.n, 101);
    ck_assert_ptr_nonnull(strstr(e.msg[0], "<system x0=\"1\">: unknown attribute"));
    ck_assert_ptr_nonnull(strstr(e.msg[100], "50 more errors not shown"));
    cfg_errors_free(&e);
    cfg_free(&c);
    unlink(path);
}
END_TEST

START_TEST(test_missing_file)
{
    cfg c;
    cfg_errors e;
    cfg_errors_init(&e);
    ck_assert_int_eq(cfg_load(&c, "/nonexistent/nosuch.xml", &e), -1);
    ck_assert_uint_eq(e.n, 1);
    ck_assert_str_eq(e.msg[0], "/nonexistent/nosuch.xml: error: cannot read: No such file or directory");
    cfg_errors_free(&e);
    cfg_free(&c);
    /* a folder is not a file (refused before reading, as devices and pipes are) */
    char p[1024], want[2200];
    path_of(p, sizeof p, "tests/fixtures");
    snprintf(want, sizeof want, "%s: error: '%s' is not a regular file (a folder): tasknet reads files", p, p);
    cfg_errors_init(&e);
    ck_assert_int_eq(cfg_load(&c, p, &e), -1);
    ck_assert_uint_eq(e.n, 1);
    ck_assert_str_eq(e.msg[0], want);
    cfg_errors_free(&e);
    cfg_free(&c);
}
END_TEST

/* ------------------------------------------------------- good configs */

/* Paper 4.1: z=[4,3], t_i = t_a = 10us, s_s = 20kB, s_r = 40kB, eps = 40B,
 * 200ns switch, 20ns links, one job. */
START_TEST(test_fig6)
{
    cfg c;
    load_ok(&c, "configs/paper/fig6.xml");
    ck_assert_uint_eq(c.nodes, 16);
    ck_assert_uint_eq(c.net.nodes, 16);
    ck_assert_str_eq(c.net_type, "electrical-switch");
    ck_assert_double_eq(c.net.bandwidth_bps, 10e9);
    ck_assert_double_eq(TT(&c)->zeta, 0);
    ck_assert_int_eq(c.net.switch_latency_ps, 200000);
    ck_assert_int_eq(c.net.link_latency_ps, 20000);
    get_eq(&c, "network.switching", "cut-through");
    get_eq(&c, "network.priority", "default"); /* fifo under host-scheduling fifo */
    ck_assert_str_eq(c.wl[0].type, "task-tree");
    ck_assert_uint_eq(TT(&c)->jobs, 1);
    ck_assert_double_eq(TT(&c)->arrival_rate_per_s, 1000);
    ck_assert_double_eq(TT(&c)->control_size_bytes, 40);
    ck_assert_int_eq(TT(&c)->tree.gen, TREE_DETERMINISTIC);
    ck_assert_uint_eq(TT(&c)->tree.zlen, 2);
    ck_assert_uint_eq(TT(&c)->tree.z[0], 4);
    ck_assert_uint_eq(TT(&c)->tree.z[1], 3);
    ck_assert(dist_is_const(&TT(&c)->task.init_time));
    ck_assert(dist_is_const(&TT(&c)->task.aggregation_time));
    ck_assert(dist_is_const(&TT(&c)->task.send_size));
    ck_assert(dist_is_const(&TT(&c)->task.result_size));
    ck_assert_double_eq_tol(dist_mean(&TT(&c)->task.init_time), 10e-6, 1e-18);
    ck_assert_double_eq_tol(dist_mean(&TT(&c)->task.aggregation_time), 10e-6, 1e-18);
    ck_assert_double_eq(dist_mean(&TT(&c)->task.send_size), 20000);
    ck_assert_double_eq(dist_mean(&TT(&c)->task.result_size), 40000);
    ck_assert_uint_eq(c.replicas, 1);
    ck_assert_uint_eq(c.seed, 1);
    ck_assert_uint_eq(TT(&c)->mc_samples, 10000);
    /* relative files resolve next to the configuration */
    size_t bl = strlen(c.basedir);
    ck_assert_msg(bl >= 13 && strcmp(c.basedir + bl - 13, "configs/paper") == 0, "basedir %s", c.basedir);
    /* 8 node counts x 7 bandwidths */
    ck_assert_uint_eq(c.naxes, 2);
    ck_assert_str_eq(c.axes[0].param, "system.nodes");
    ck_assert_str_eq(c.axes[1].param, "network.bandwidth");
    ck_assert_uint_eq(cfg_points(&c), 56);
    get_eq(&c, "workload.tree.z", "4 3");
    get_eq(&c, "workload.task.send-size", "20kB");
    get_eq(&c, "network.switch-latency", "200ns");
    get_eq(&c, "network.zeta", "");
    /* last point: N = 32, B = 100Gb/s */
    cfg pc;
    char err[512];
    ck_assert_int_eq(cfg_point(&c, 55, &pc, err, sizeof err), 0);
    ck_assert_uint_eq(pc.nodes, 32);
    ck_assert_uint_eq(pc.net.nodes, 32);
    ck_assert_double_eq(pc.net.bandwidth_bps, 100e9);
    cfg_free(&pc);
    /* point 7 = N index 1 (3 nodes), B index 0 (1Gb/s) */
    ck_assert_int_eq(cfg_point(&c, 7, &pc, err, sizeof err), 0);
    ck_assert_uint_eq(pc.nodes, 3);
    ck_assert_double_eq(pc.net.bandwidth_bps, 1e9);
    cfg_free(&pc);
    cfg_free(&c);
}
END_TEST

/* Paper 4.1, Fig. 8: N = 100, B = zeta F, beta from rho_x. */
START_TEST(test_fig8)
{
    cfg c;
    load_ok(&c, "configs/paper/fig8.xml");
    ck_assert_uint_eq(c.nodes, 100);
    ck_assert_double_eq(TT(&c)->zeta, 1);
    ck_assert_double_eq(c.net.bandwidth_bps, 0);
    ck_assert_double_eq(TT(&c)->load, 0.1);
    ck_assert_double_eq(TT(&c)->arrival_rate_per_s, 0);
    ck_assert_uint_eq(TT(&c)->jobs, 1500);
    ck_assert_uint_eq(c.replicas, 5);
    get_eq(&c, "network.bandwidth", "");
    get_eq(&c, "workload.arrival-rate", "");
    /* 3 zetas x 15 loads */
    ck_assert_uint_eq(cfg_points(&c), 45);
    ck_assert_str_eq(cfg_point_value(&c, 0, 0), "1");
    ck_assert_str_eq(cfg_point_value(&c, 0, 1), "0.1");
    ck_assert_str_eq(cfg_point_value(&c, 16, 0), "2");
    ck_assert_str_eq(cfg_point_value(&c, 16, 1), "0.2");
    ck_assert_str_eq(cfg_point_value(&c, 44, 0), "4");
    ck_assert_str_eq(cfg_point_value(&c, 44, 1), "1.5");
    cfg pc;
    char err[512];
    ck_assert_int_eq(cfg_point(&c, 44, &pc, err, sizeof err), 0);
    ck_assert_double_eq(TT(&pc)->zeta, 4);
    ck_assert_double_eq(TT(&pc)->load, 1.5);
    ck_assert_double_eq(pc.net.bandwidth_bps, 0);
    cfg_free(&pc);
    cfg_free(&c);
}
END_TEST

/* Paper 4.2, Fig. 9: preferential trees, n ~ U{25..175} (mean 100), times
 * U[2us,100us] (mean 51us), sizes U[2kB,128kB] (mean 65kB), beta 5000/s. */
START_TEST(test_fig9)
{
    cfg c;
    load_ok(&c, "configs/paper/fig9.xml");
    ck_assert_int_eq(TT(&c)->tree.gen, TREE_PREFERENTIAL);
    ck_assert_int_eq(TT(&c)->tree.vertices.kind, DIST_UNIFORM_INT);
    ck_assert_double_eq(TT(&c)->tree.vertices.a, 25);
    ck_assert_double_eq(TT(&c)->tree.vertices.b, 175);
    ck_assert_double_eq(dist_mean(&TT(&c)->tree.vertices), 100);
    ck_assert_double_eq(TT(&c)->tree.shape, 1);
    ck_assert_int_eq(TT(&c)->task.init_time.kind, DIST_UNIFORM);
    ck_assert_double_eq_tol(dist_mean(&TT(&c)->task.init_time), 51e-6, 1e-18);
    ck_assert_double_eq_tol(dist_mean(&TT(&c)->task.aggregation_time), 51e-6, 1e-18);
    ck_assert_double_eq(dist_mean(&TT(&c)->task.send_size), 65000);
    ck_assert_double_eq(dist_mean(&TT(&c)->task.result_size), 65000);
    ck_assert_double_eq(TT(&c)->arrival_rate_per_s, 5000);
    ck_assert_double_eq(TT(&c)->control_size_bytes, 40);
    ck_assert_uint_eq(TT(&c)->jobs, 1500);
    ck_assert_uint_eq(c.replicas, 5);
    ck_assert_uint_eq(c.seed, 1);
    get_eq(&c, "workload.tree.vertices", "uniform-int(25,175)");
    get_eq(&c, "workload.task.init-time", "uniform(2us,100us)");
    get_eq(&c, "workload.arrival-rate", "5000/s");
    /* 5 node counts x 3 bandwidths, the last axis fastest */
    ck_assert_uint_eq(cfg_points(&c), 15);
    static const unsigned nodes[] = {50, 100, 200, 500, 1000};
    static const double bw[] = {1e9, 10e9, 100e9};
    static const char *const bws[] = {"1Gb/s", "10Gb/s", "100Gb/s"};
    for (size_t p = 0; p < 15; p++) {
        cfg pc;
        char err[512];
        ck_assert_int_eq(cfg_point(&c, p, &pc, err, sizeof err), 0);
        ck_assert_uint_eq(pc.nodes, nodes[p / 3]);
        ck_assert_double_eq(pc.net.bandwidth_bps, bw[p % 3]);
        ck_assert_str_eq(cfg_point_value(&c, p, 1), bws[p % 3]);
        /* the point keeps its axes and knows its own values */
        ck_assert_uint_eq(pc.naxes, 2);
        ck_assert_uint_eq(cfg_points(&pc), 1);
        ck_assert_str_eq(cfg_point_value(&pc, 0, 1), bws[p % 3]);
        /* everything else is the base's */
        ck_assert_double_eq(dist_mean(&TT(&pc)->task.send_size), 65000);
        cfg_free(&pc);
    }
    cfg pc;
    char err[512];
    ck_assert_int_eq(cfg_point(&c, 15, &pc, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "out of range"));
    cfg_free(&pc);
    ck_assert_str_eq(cfg_point_value(&c, 15, 0), "");
    cfg_free(&c);
}
END_TEST

START_TEST(test_fig10)
{
    cfg c;
    load_ok(&c, "configs/paper/fig10.xml");
    ck_assert_uint_eq(cfg_points(&c), 16); /* 2 x 4 x 2 */
    ck_assert_str_eq(c.axes[2].param, "workload.tree.shape");
    cfg pc;
    char err[512];
    ck_assert_int_eq(cfg_point(&c, 1, &pc, err, sizeof err), 0);
    ck_assert_uint_eq(pc.nodes, 300);
    ck_assert_double_eq(pc.net.bandwidth_bps, 10e9);
    ck_assert_double_eq(TT(&pc)->tree.shape, 2);
    cfg_free(&pc);
    ck_assert_int_eq(cfg_point(&c, 15, &pc, err, sizeof err), 0);
    ck_assert_uint_eq(pc.nodes, 500);
    ck_assert_double_eq(pc.net.bandwidth_bps, 100e9);
    ck_assert_double_eq(TT(&pc)->tree.shape, 2);
    cfg_free(&pc);
    cfg_free(&c);
}
END_TEST

/* Axes with with="P" follow P's axis value by value: fig11 has seven
 * fabrics, not 7^4 combinations; --set on the lead hands its role on. */
START_TEST(test_fig11_zipped_axes)
{
    cfg c;
    load_ok(&c, "configs/paper/fig11.xml");
    ck_assert_uint_eq(c.naxes, 4);
    ck_assert_uint_eq(cfg_points(&c), 7);
    ck_assert_str_eq(c.axes[2].with, "network.type");
    static const char *const type[] = {"electrical-switch", "spinet", "spinet", "spinet", "spinet", "spinet", "spinet"};
    static const double bw[] = {40e9, 160e9, 160e9, 160e9, 160e9, 160e9, 160e9};
    static const unsigned extra[] = {0, 0, 1, 2, 0, 1, 2};
    static const uint64_t pkt[] = {1000, 1000, 1000, 1000, 16000, 16000, 16000};
    for (size_t i = 0; i < 7; i++) {
        cfg pc;
        char err[512];
        ck_assert_int_eq(cfg_point(&c, i, &pc, err, sizeof err), 0);
        ck_assert_str_eq(pc.net_type, type[i]);
        ck_assert_double_eq(pc.net.bandwidth_bps, bw[i]);
        ck_assert_uint_eq(SPN(&pc)->extra_stages, extra[i]);
        ck_assert_uint_eq(SPN(&pc)->packet_bytes, pkt[i]);
        ck_assert_str_eq(cfg_point_value(&c, i, 3), i < 4 ? "1kB" : "16kB");
        cfg_free(&pc);
    }
    /* fixing the lead: the next axis leads the two others, still 7 points */
    ck_assert_int_eq(cfg_drop_axis(&c, "network.type"), 1);
    ck_assert_uint_eq(c.naxes, 3);
    ck_assert_str_eq(c.axes[0].param, "network.bandwidth");
    ck_assert_str_eq(c.axes[0].with, "");
    ck_assert_str_eq(c.axes[1].with, "network.bandwidth");
    ck_assert_str_eq(c.axes[2].with, "network.bandwidth");
    ck_assert_uint_eq(cfg_points(&c), 7);
    ck_assert_str_eq(cfg_point_value(&c, 6, 1), "2");
    ck_assert_int_eq(cfg_drop_axis(&c, "network.type"), 0);
    cfg_free(&c);
}
END_TEST

START_TEST(test_quickstart)
{
    cfg c;
    load_ok(&c, "configs/examples/quickstart.xml");
    ck_assert_uint_eq(c.nodes, 64);
    ck_assert_double_eq(c.net.bandwidth_bps, 10e9);
    ck_assert_uint_eq(TT(&c)->jobs, 200);
    ck_assert_uint_eq(c.replicas, 2);
    ck_assert_uint_eq(c.naxes, 0);
    ck_assert_uint_eq(cfg_points(&c), 1);
    /* defaults fill what the file leaves out */
    ck_assert_int_eq(c.net.switch_latency_ps, 200000);
    ck_assert_int_eq(c.net.link_latency_ps, 20000);
    cfg_errors e;
    cfg_errors_init(&e);
    ck_assert_int_eq(cfg_check(&c, &e), 0);
    ck_assert_uint_eq(e.n, 0);
    cfg_errors_free(&e);
    cfg_free(&c);
}
END_TEST

/* Relative empirical files resolve against the configuration's folder:
 * cdf_small.csv has step mean 340 B and linear mean 255 B. */
START_TEST(test_empirical_relative)
{
    cfg c;
    load_ok(&c, "tests/fixtures/good/empirical.xml");
    ck_assert_int_eq(TT(&c)->task.send_size.kind, DIST_EMPIRICAL);
    ck_assert_double_eq_tol(dist_mean(&TT(&c)->task.send_size), 340, 1e-9);
    ck_assert_double_eq_tol(dist_mean(&TT(&c)->task.result_size), 255, 1e-9);
    ck_assert_str_eq(c.net_type, "ideal");
    ck_assert_int_eq(TT(&c)->task.aggregation_time.kind, DIST_NORMAL);
    /* --set resolves against the same folder */
    char err[512];
    ck_assert_int_eq(cfg_set(&c, "workload.task.send-size", "empirical(../cdf_small.csv,linear)", err, sizeof err), 0);
    ck_assert_double_eq_tol(dist_mean(&TT(&c)->task.send_size), 255, 1e-9);
    ck_assert_int_eq(cfg_set(&c, "workload.task.send-size", "empirical(cdf_small.csv)", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "fixtures/good/cdf_small.csv"));
    cfg_free(&c);
}
END_TEST

/* <value> children (values with spaces), CDATA, entities, a DOCTYPE. */
START_TEST(test_value_children)
{
    cfg c;
    load_ok(&c, "tests/fixtures/good/z_axis.xml");
    ck_assert_double_eq(TT(&c)->arrival_rate_per_s, 2000); /* from the entity */
    get_eq(&c, "network.switching", "store-and-forward");
    get_eq(&c, "network.priority", "control-first");
    ck_assert_uint_eq(c.seed, UINT64_MAX);
    ck_assert_uint_eq(TT(&c)->mc_samples, 500);
    ck_assert_uint_eq(c.naxes, 2);
    ck_assert_uint_eq(c.axes[0].nvalues, 2);
    ck_assert_str_eq(c.axes[0].values[0], "4 3");
    ck_assert_str_eq(c.axes[0].values[1], "2 2 2");
    ck_assert_str_eq(c.axes[1].values[1], "1us");
    ck_assert_uint_eq(cfg_points(&c), 4);
    cfg pc;
    char err[512];
    ck_assert_int_eq(cfg_point(&c, 3, &pc, err, sizeof err), 0);
    ck_assert_uint_eq(TT(&pc)->tree.zlen, 3);
    ck_assert_uint_eq(TT(&pc)->tree.z[2], 2);
    ck_assert_int_eq(pc.net.link_latency_ps, 1000000);
    cfg_free(&pc);
    cfg_free(&c);
}
END_TEST

/* ------------------------------------------------------------- cfg_set */

START_TEST(test_set)
{
    cfg c;
    load_ok(&c, "configs/paper/fig6.xml");
    char err[1024];
    ck_assert_int_eq(cfg_set(&c, "system.nodes", "32", err, sizeof err), 0);
    ck_assert_uint_eq(c.nodes, 32);
    ck_assert_uint_eq(c.net.nodes, 32);
    ck_assert_int_eq(cfg_set(&c, "network.bandwidth", "100Gb/s", err, sizeof err), 0);
    ck_assert_double_eq(c.net.bandwidth_bps, 100e9);
    /* one of a pair clears the other: last wins */
    ck_assert_int_eq(cfg_set(&c, "network.zeta", "2", err, sizeof err), 0);
    ck_assert_double_eq(TT(&c)->zeta, 2);
    ck_assert_double_eq(c.net.bandwidth_bps, 0);
    get_eq(&c, "network.bandwidth", "");
    get_eq(&c, "network.zeta", "2");
    ck_assert_int_eq(cfg_set(&c, "network.bandwidth", "40Gb/s", err, sizeof err), 0);
    ck_assert_double_eq(TT(&c)->zeta, 0);
    ck_assert_int_eq(cfg_set(&c, "workload.load", "0.1", err, sizeof err), 0);
    ck_assert_double_eq(TT(&c)->arrival_rate_per_s, 0);
    ck_assert_double_eq(TT(&c)->load, 0.1);
    ck_assert_int_eq(cfg_set(&c, "workload.tree.z", "2 2 2", err, sizeof err), 0);
    ck_assert_uint_eq(TT(&c)->tree.zlen, 3);
    ck_assert_int_eq(cfg_set(&c, "workload.task.init-time", "exponential(50us)", err, sizeof err), 0);
    ck_assert_double_eq_tol(dist_mean(&TT(&c)->task.init_time), 50e-6, 1e-18);
    ck_assert_int_eq(cfg_set(&c, "network.priority", "control-first", err, sizeof err), 0);
    get_eq(&c, "network.priority", "control-first");
    ck_assert_int_eq(cfg_set(&c, "network.protocol", "slotted", err, sizeof err), 0);
    ck_assert_int_eq(SPN(&c)->recovery, SPN_SLOTTED);
    ck_assert_int_eq(cfg_set(&c, "network.buffer", "1MB", err, sizeof err), 0);
    ck_assert_uint_eq(SPN(&c)->buffer_bytes, 1000000);
    ck_assert_int_eq(cfg_set(&c, "workload.jobs", "1e6", err, sizeof err), 0);
    ck_assert_uint_eq(TT(&c)->jobs, 1000000);
    ck_assert_int_eq(cfg_set(&c, "network.type", "ideal", err, sizeof err), 0);
    ck_assert_str_eq(c.net_type, "ideal");

    /* rejected values leave the configuration as it was */
    ck_assert_int_eq(cfg_set(&c, "network.bandwidth", "40", err, sizeof err), -1);
    ck_assert_str_eq(err, "missing unit (e.g. 40Gb/s)");
    ck_assert_double_eq(c.net.bandwidth_bps, 40e9);
    ck_assert_int_eq(cfg_set(&c, "network.bandwidth", "0Gb/s", err, sizeof err), -1);
    ck_assert_str_eq(err, "must be greater than 0");
    ck_assert_int_eq(cfg_set(&c, "workload.tree.z", "4 0", err, sizeof err), -1);
    ck_assert_str_eq(err, "z contains 0 at position 2: every level needs at least one child");
    ck_assert_uint_eq(TT(&c)->tree.zlen, 3);
    ck_assert_int_eq(cfg_set(&c, "system.nodes", "1", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "must be at least 2"));
    ck_assert_int_eq(cfg_set(&c, "system.nodes", "-4", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "must be at least 2"));
    ck_assert_int_eq(cfg_set(&c, "system.nodes", "4294967296", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "must be at most 4294967295"));
    ck_assert_int_eq(cfg_set(&c, "run.replicas", "2.5", err, sizeof err), -1);
    ck_assert_str_eq(err, "'2.5' is not an integer");
    ck_assert_int_eq(cfg_set(&c, "network.type", "nope", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "unknown network type 'nope' (expected one of:"));
    ck_assert_int_eq(cfg_set(&c, "network.switching", "bufferless", err, sizeof err), -1);
    ck_assert_str_eq(err, "unknown value (expected one of: cut-through, store-and-forward, wormhole)");
    ck_assert_int_eq(cfg_set(&c, "workload.task.send-size", "-20kB", err, sizeof err), -1);
    ck_assert_str_eq(err, "must not be negative");
    ck_assert_int_eq(cfg_set(&c, "workload.tree.vertices", "uniform-int(0,10)", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "below 1"));
    /* normal() is clamped at 0, so a negative mean is allowed */
    ck_assert_int_eq(cfg_set(&c, "workload.task.init-time", "normal(-1us,2us)", err, sizeof err), 0);

    /* unknown paths: the closest one, or the list */
    ck_assert_int_eq(cfg_set(&c, "network.bandwith", "1Gb/s", err, sizeof err), -1);
    ck_assert_str_eq(err, "unknown parameter 'network.bandwith' (did you mean network.bandwidth?)");
    ck_assert_int_eq(cfg_set(&c, "foo", "1", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "unknown parameter 'foo' (parameters: system.nodes, network.type,"));
    ck_assert_int_eq(cfg_get(&c, "foo", err, sizeof err), -1);
    cfg_free(&c);
}
END_TEST

/* The defaults are the table's "def" column, and cfg_check names what a
 * configuration built in code still lacks. */
/* network.switch-latency is the core's row and the switched fabrics' own
 * (swnet.h SWNET_ROW_SWITCH_LATENCY, iqrouter.c's "Switch latency"): not
 * given, the core holds 200ns (the output-queued router's) and the torus's
 * row 0s (its input-queued router's); given, both hold the value, and the
 * path reads the core's. */
START_TEST(test_switch_latency_rows)
{
    cfg c;
    cfg_defaults(&c);
    char err[512], buf[64];
    ck_assert_int_eq(cfg_set(&c, "network.type", "torus", err, sizeof err), 0);
    long tor = -1;
    for (size_t i = 0; i < cfg_param_count(); i++)
        if (strcmp(cfg_param_at(i)->row->path, "network.switch-latency") == 0 && cfg_param_at(i)->plugin &&
            strcmp(cfg_param_at(i)->plugin, "torus") == 0)
            tor = (long)i;
    ck_assert_int_ge(tor, 0);
    ck_assert_int_eq(cfg_param_get_at(&c, (size_t)tor, 0, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "0s");
    get_eq(&c, "network.switch-latency", "200ns");
    ck_assert_int_eq(c.net.switch_latency_ps, 200000);
    /* the value a get reads is the one the selected router uses: under the
     * input-queued router the torus's row (0s), under the output-queued the
     * core's (200ns); the single switch has no row of its own and hands the
     * core's to either router */
    ck_assert_int_eq(cfg_set(&c, "network.router", "input-queued", err, sizeof err), 0);
    get_eq(&c, "network.switch-latency", "0s");
    ck_assert_int_eq(cfg_set(&c, "network.type", "electrical-switch", err, sizeof err), 0);
    get_eq(&c, "network.switch-latency", "200ns");
    ck_assert_int_eq(cfg_set(&c, "network.type", "torus", err, sizeof err), 0);
    get_eq(&c, "network.switch-latency", "0s");
    ck_assert_int_eq(cfg_set(&c, "network.router", "output-queued", err, sizeof err), 0);
    get_eq(&c, "network.switch-latency", "200ns");
    ck_assert_int_eq(cfg_set(&c, "network.switch-latency", "100ns", err, sizeof err), 0);
    ck_assert_int_eq(cfg_param_get_at(&c, (size_t)tor, 0, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "100ns");
    ck_assert_int_eq(c.net.switch_latency_ps, 100000);
    /* given, both routers read it */
    get_eq(&c, "network.switch-latency", "100ns");
    ck_assert_int_eq(cfg_set(&c, "network.router", "input-queued", err, sizeof err), 0);
    get_eq(&c, "network.switch-latency", "100ns");
    /* a negative value is refused for every owner, nothing changed */
    ck_assert_int_eq(cfg_set(&c, "network.switch-latency", "-1ns", err, sizeof err), -1);
    ck_assert_int_eq(cfg_param_get_at(&c, (size_t)tor, 0, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "100ns");
    cfg_free(&c);
}
END_TEST

/* A refusal caused by a swept value is reported at the axis that sent it
 * (its param attribute: "    <axis " is 10 characters, column 11), naming
 * the value and the first point it is refused at, with that point's swept
 * values (points in order, the first axis slowest: 0 dor/off, 1
 * dor/destination, 2 anca/off, 3 anca/destination); a value refused at
 * several points for the same reason once (destination at 1 and 3, anca at
 * 2 and 3); a value the file writes keeps its attribute's place (the
 * workload's measure="window": column 90, see bad_cases). */
START_TEST(test_sweep_refusals_at_axis)
{
    char p[1024];
    path_of(p, sizeof p, "tests/fixtures/bad/sweep_value_refused.xml");
    cfg c;
    cfg_errors e;
    cfg_errors_init(&e);
    ck_assert_int_eq(cfg_load(&c, p, &e), -1);
    char want[3][2048];
    snprintf(want[0], sizeof want[0], "%s:4:90: error: <workload measure=\"window\">: \"window\" is the foreground's "
             "window", p);
    snprintf(want[1], sizeof want[1], "%s:6:11: error: <axis param=\"network.routing\">: value 'anca' at sweep point 2 "
             "(network.routing=anca network.congestion-isolation=off): the torus does not take 'anca': unknown value "
             "(expected one of: default, dor, adaptive, valiant, romm)", p);
    snprintf(want[2], sizeof want[2], "%s:7:11: error: <axis param=\"network.congestion-isolation\">: value "
             "'destination' at sweep point 1 (network.routing=dor network.congestion-isolation=destination): the 4x4 "
             "torus routes with 2 deadlock classes (VCs); the isolation VC keeps a routing deadlock-free only where "
             "one class does (fat-tree, leaf-spine, graph)", p);
    ck_assert_uint_eq(e.n, 3);
    ck_assert_msg(strncmp(e.msg[0], want[0], strlen(want[0])) == 0, "'%s'", e.msg[0]);
    ck_assert_str_eq(e.msg[1], want[1]);
    ck_assert_str_eq(e.msg[2], want[2]);
    cfg_errors_free(&e);
    cfg_free(&c);
}
END_TEST

/* network.routing is each topology's own (topo.h): every switched fabric's
 * row takes "default" and its topology's routings. A routing of another
 * fabric is kept (that fabric's row takes it: a sweep over network.type may
 * use it there) and refused where this fabric runs, with this fabric's
 * choices; a name no fabric has is refused at once, with the selected
 * fabric's choices. In a sweep each point is checked with its own fabric. */
START_TEST(test_routing_per_fabric)
{
    static const struct {
        const char *type, *other, *list;
    } f[] = {
        {"torus", "ugal", "default, dor, adaptive, valiant, romm"},
        {"fat-tree", "ugal", "default, d-mod-k, random-up, anca"},
        {"leaf-spine", "adaptive", "default, ecmp, d-mod-k"},
        {"dragonfly", "dor", "default, minimal, valiant, ugal"},
        {"graph", "romm", "default, file, shortest, up-down, ecmp"},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        cfg c;
        cfg_defaults(&c);
        char err[1024], want[512];
        ck_assert_int_eq(cfg_set(&c, "network.type", f[i].type, err, sizeof err), 0);
        ck_assert_int_eq(cfg_set(&c, "network.routing", f[i].other, err, sizeof err), 0);
        cfg_errors e;
        cfg_errors_init(&e);
        ck_assert_int_eq(cfg_check(&c, &e), -1);
        snprintf(want, sizeof want, "network.routing: the %s does not take '%s': unknown value (expected one of: %s)",
                 f[i].type, f[i].other, f[i].list);
        int found = 0;
        for (size_t m = 0; m < e.n; m++)
            found |= strstr(e.msg[m], want) != NULL;
        ck_assert_msg(found, "%s: no error '%s'", f[i].type, want);
        cfg_errors_free(&e);
        /* a name no fabric has: refused at once, the value before kept */
        ck_assert_int_eq(cfg_set(&c, "network.routing", "dorr", err, sizeof err), -1);
        snprintf(want, sizeof want, "unknown value (expected one of: %s)", f[i].list);
        ck_assert_str_eq(err, want);
        cfg_free(&c);
    }
    /* a fabric without a routing of its own (the single switch): a name no
     * fabric has is refused with every owner's list, not as if the fabric
     * were the first owner (the torus), whose list it does not have */
    {
        cfg c;
        cfg_defaults(&c);
        char err[2048];
        ck_assert_int_eq(cfg_set(&c, "network.type", "electrical-switch", err, sizeof err), 0);
        ck_assert_int_eq(cfg_set(&c, "network.routing", "dorr", err, sizeof err), -1);
        for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
            char want[512];
            snprintf(want, sizeof want, "%s: unknown value (expected one of: %s)", f[i].type, f[i].list);
            ck_assert_msg(strstr(err, want) != NULL, "no '%s' in '%s'", want, err);
        }
        cfg_free(&c);
    }
    /* a sweep over fabrics, each with a routing of its own; then the same
     * routings the wrong way round: both points refused */
#define ROUTING_SWEEP_XML                                                                                        \
        "<tasknet version=\"1\"><system nodes=\"36\"/>"                                                               \
        "<network type=\"torus\" dims=\"6 6\" groups=\"3\" routers-per-group=\"3\" hosts-per-router=\"4\" " \
        "global-links=\"2\" bandwidth=\"10Gb/s\"/>" \
        "<workload type=\"uniform-random\" message-size=\"4kB\" offered-load=\"0.3\" duration=\"100us\"/><sweep>" \
        "<axis param=\"network.type\" values=\"torus dragonfly\"/>" \
        "<axis param=\"network.routing\" with=\"network.type\" values=\"%s\"/></sweep></tasknet>"

    char dir[] = "/tmp/tasknet-routing-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[512];
    snprintf(path, sizeof path, "%s/sweep.xml", dir);
    for (int wrong = 0; wrong < 2; wrong++) {
        FILE *fp = fopen(path, "w");
        ck_assert_ptr_nonnull(fp);
        fprintf(fp, ROUTING_SWEEP_XML, wrong ? "ugal adaptive" : "adaptive ugal");
        fclose(fp);
        cfg c;
        cfg_errors e;
        cfg_errors_init(&e);
        int rc = cfg_load(&c, path, &e);
        if (!wrong) {
            ck_assert_msg(rc == 0, "%s", e.n ? e.msg[0] : "");
            char err[512];
            cfg p0, p1;
            ck_assert_int_eq(cfg_point(&c, 0, &p0, err, sizeof err), 0);
            ck_assert_int_eq(cfg_point(&c, 1, &p1, err, sizeof err), 0);
            get_eq(&p0, "network.routing", "adaptive");
            get_eq(&p1, "network.routing", "ugal");
            cfg_free(&p0);
            cfg_free(&p1);
        } else {
            ck_assert_int_eq(rc, -1);
            int tor = 0, df = 0;
            for (size_t m = 0; m < e.n; m++) {
                /* the value named: a point's error stands at the <network> element, not the axis */
                tor |= strstr(e.msg[m], "the torus does not take 'ugal'") != NULL;
                df |= strstr(e.msg[m], "the dragonfly does not take 'adaptive': unknown value (expected one of: default, "
                                       "minimal, valiant, ugal)") != NULL;
            }
            ck_assert_msg(tor && df, "%zu errors, first: %s", e.n, e.n ? e.msg[0] : "");
        }
        cfg_errors_free(&e);
        cfg_free(&c);
    }
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(test_defaults_and_check)
{
    cfg c;
    cfg_defaults(&c);
    size_t n = cfg_param_count();
    ck_assert_uint_ge(n, 27);
    ck_assert_ptr_null(cfg_param_at(n));
    for (size_t i = 0; i < n; i++) {
        const cfg_param_info *p = cfg_param_at(i);
        char buf[256];
        ck_assert_int_eq(cfg_get(&c, p->row->path, buf, sizeof buf), 0);
        if (p->row->kind == PARAM_NAME) /* the registries' defaults */
            continue;
        /* a fabric's own default shows once it is selected (network.mtu:
         * whole messages on the switch, packets on the topologies); a
         * fabric's copy of a core path (network.switch-latency: 0ns for the
         * switched fabrics' input-queued router) is its own row's value,
         * while the path reads the core's (the output-queued router's) */
        if (p->owner == CFG_OWN_NET && strcmp(p->plugin, "electrical-switch") != 0) {
            cfg d;
            cfg_defaults(&d);
            ck_assert_int_eq(cfg_set(&d, "network.type", p->plugin, buf, sizeof buf), 0);
            ck_assert_int_eq(cfg_param_get_at(&d, i, 0, buf, sizeof buf), 0);
            cfg_free(&d);
        }
        /* and a workload's (workload.jobs: 1500 task trees, one task graph) */
        if (p->owner == CFG_OWN_WL && p->plugin && strcmp(p->plugin, "task-tree") != 0) {
            cfg d;
            cfg_defaults(&d);
            ck_assert_int_eq(cfg_set(&d, "workload.type", p->plugin, buf, sizeof buf), 0);
            ck_assert_int_eq(cfg_get(&d, p->row->path, buf, sizeof buf), 0);
            cfg_free(&d);
        }
        const char *def = p->row->def ? p->row->def : "";
        ck_assert_msg(strcmp(buf, def) == 0, "%s (%s): default '%s', its row says '%s'", p->row->path,
                      p->plugin ? p->plugin : "core", buf, def);
    }
    get_eq(&c, "network.type", "electrical-switch");
    get_eq(&c, "workload.type", "task-tree");
    ck_assert_int_eq(c.net.switch_latency_ps, 200000);
    ck_assert_int_eq(((const spn_params *)c.net_block[net_index(net_find("spinet"))])->slot_ps, 100000);
    ck_assert_int_eq(((const spn_params *)c.net_block[net_index(net_find("spinet"))])->switching_time_ps, 1000);
    ck_assert_uint_eq(TT(&c)->jobs, 1500);
    ck_assert_uint_eq(TT(&c)->mc_samples, 10000);

    cfg_errors e;
    cfg_errors_init(&e);
    ck_assert_int_eq(cfg_check(&c, &e), -1);
    /* N, bandwidth/zeta, arrival-rate/load, z and the four task variables */
    ck_assert_uint_eq(e.n, 8);
    ck_assert_ptr_nonnull(strstr(e.msg[0], "error: missing system.nodes"));
    ck_assert_ptr_nonnull(strstr(e.msg[1], "missing network.bandwidth or network.zeta"));
    ck_assert_ptr_nonnull(strstr(e.msg[2], "missing workload.arrival-rate or workload.load"));
    /* the workload's own check, after the rows' rules: last */
    ck_assert_ptr_nonnull(strstr(e.msg[7], "missing workload.tree.z (generator deterministic, the default, needs it"));
    cfg_errors_free(&e);
    cfg_free(&c);

    /* a loaded config made inconsistent in code */
    load_ok(&c, "configs/examples/quickstart.xml");
    ((tasktree_params *)cfg_wl_params(&c))->zeta = 2;
    cfg_errors_init(&e);
    ck_assert_int_eq(cfg_check(&c, &e), -1);
    ck_assert_uint_eq(e.n, 1);
    ck_assert_ptr_nonnull(strstr(e.msg[0], "quickstart.xml: error: network.zeta: give either network.bandwidth or network.zeta"));
    cfg_errors_free(&e);
    cfg_free(&c);
}
END_TEST

/* cfg_point reports a point that fails its cross-checks. */
START_TEST(test_point_cross_check)
{
    cfg c;
    load_ok(&c, "configs/paper/fig9.xml");
    /* switch to deterministic trees without z: every point lacks it */
    char err[512];
    ck_assert_int_eq(cfg_set(&c, "workload.tree.generator", "deterministic", err, sizeof err), 0);
    cfg pc;
    ck_assert_int_eq(cfg_point(&c, 0, &pc, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "missing workload.tree.z"));
    cfg_free(&pc);
    cfg_errors e;
    cfg_errors_init(&e);
    ck_assert_int_eq(cfg_check(&c, &e), -1);
    /* the same problem at 15 points, said once; and fig9's vertices and
     * shape, which only the preferential generator reads, are refused too */
    ck_assert_uint_eq(e.n, 3);
    int missing = 0, unused = 0;
    for (size_t i = 0; i < e.n; i++) {
        missing += strstr(e.msg[i], "missing workload.tree.z") != NULL;
        unused += strstr(e.msg[i], "applies where workload.tree.generator is preferential, and it is deterministic") !=
                  NULL;
    }
    ck_assert_int_eq(missing, 1);
    ck_assert_int_eq(unused, 2);
    cfg_errors_free(&e);
    cfg_free(&c);
}
END_TEST

/* hpcc needs one path per flow (app/config/config_check.c): of the switched
 * fabrics' routings, exactly the adaptive ones (a path chosen packet by
 * packet from the ports' loads: the fat tree's anca, the dragonfly's ugal)
 * are refused at network.routing; the oblivious ones draw from the flow's
 * salt, one path per flow, and are accepted (swnet.c flow_key; a 16-host
 * all-to-all resends nothing under them, README). The torus's adaptive is
 * refused by PFC already. dcqcn, whose sender needs no INT, is accepted on
 * anca (its resends from reordering are documented, not hidden). */
START_TEST(test_hpcc_one_path_per_flow)
{
    static const struct {
        const char *type, *nodes, *shape[3][2], *routing, *transport;
        int refused;
    } cases[] = {
        {"fat-tree", "16", {{"network.arity", "4"}, {"network.levels", "2"}}, "d-mod-k", "hpcc", 0},
        {"fat-tree", "16", {{"network.arity", "4"}, {"network.levels", "2"}}, "random-up", "hpcc", 0},
        {"fat-tree", "16", {{"network.arity", "4"}, {"network.levels", "2"}}, "anca", "hpcc", 1},
        {"fat-tree", "16", {{"network.arity", "4"}, {"network.levels", "2"}}, "anca", "dcqcn", 0},
        {"dragonfly", "18", {{"network.groups", "9"}, {"network.routers-per-group", "2"}, {"network.global-links", "4"}}, "minimal", "hpcc", 0},
        {"dragonfly", "18", {{"network.groups", "9"}, {"network.routers-per-group", "2"}, {"network.global-links", "4"}}, "valiant", "hpcc", 0},
        {"dragonfly", "18", {{"network.groups", "9"}, {"network.routers-per-group", "2"}, {"network.global-links", "4"}}, "ugal", "hpcc", 1},
        {"torus", "16", {{"network.dims", "4 4"}, {NULL, NULL}}, "dor", "hpcc", 0},
        {"torus", "16", {{"network.dims", "4 4"}, {NULL, NULL}}, "valiant", "hpcc", 0},
        {"torus", "16", {{"network.dims", "4 4"}, {NULL, NULL}}, "romm", "hpcc", 0},
        {"leaf-spine", "16", {{"network.leaves", "4"}, {"network.spines", "2"}}, "ecmp", "hpcc", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cfg c;
        load_ok(&c, "tests/fixtures/good/hpcc_fabric.xml");
        char err[1024];
        ck_assert_int_eq(cfg_set(&c, "network.type", cases[i].type, err, sizeof err), 0);
        ck_assert_int_eq(cfg_set(&c, "system.nodes", cases[i].nodes, err, sizeof err), 0);
        for (int j = 0; j < 3; j++)
            if (cases[i].shape[j][0])
                ck_assert_msg(cfg_set(&c, cases[i].shape[j][0], cases[i].shape[j][1], err, sizeof err) == 0, "%s",
                              err);
        ck_assert_int_eq(cfg_set(&c, "network.routing", cases[i].routing, err, sizeof err), 0);
        ck_assert_int_eq(cfg_set(&c, "transport.type", cases[i].transport, err, sizeof err), 0);
        cfg_errors e;
        cfg_errors_init(&e);
        int rc = cfg_check(&c, &e);
        if (cases[i].refused) {
            ck_assert_msg(rc == -1 && e.n == 1, "%s %s: %zu errors", cases[i].type, cases[i].routing, e.n);
            char want[128];
            snprintf(want, sizeof want, "network.routing: transport hpcc needs one path per flow: routing=%s picks",
                     cases[i].routing);
            ck_assert_msg(strstr(e.msg[0], want) != NULL, "%s", e.msg[0]);
        } else {
            ck_assert_msg(rc == 0, "%s %s %s: %s", cases[i].type, cases[i].routing, cases[i].transport,
                          e.n ? e.msg[0] : "");
        }
        cfg_errors_free(&e);
        cfg_free(&c);
    }
}
END_TEST

/* ---------------------------------------------------------- round trip */

/* Equal, or a relative empirical file (or a file an axis gave relatively:
 * a point is written fully expanded) written back as an absolute path. */
static int same_value(const char *va, const char *vb)
{
    if (strcmp(va, vb) == 0)
        return 1;
    const char *fa = strrchr(va, '/'), *fb = strrchr(vb, '/');
    if (va[0] != '/' && vb[0] == '/' && fa && fb && strcmp(fa, fb) == 0 && !strchr(va, '('))
        return 1;
    return strncmp(va, "empirical(", 10) == 0 && va[10] != '/' && fa && fb &&
           strncmp(vb, "empirical(/", 11) == 0 && strcmp(fa, fb) == 0;
}

static void assert_same(const cfg *a, const cfg *b, const char *what, int axes)
{
    ck_assert_uint_eq(a->nwl, b->nwl);
    for (size_t i = 0; i < cfg_param_count(); i++) {
        cfg_owner o = cfg_param_at(i)->owner;
        size_t nk = o == CFG_OWN_WL || o == CFG_OWN_WLI ? a->nwl : 1;
        for (size_t k = 0; k < nk; k++) {
            if (!cfg_param_applies_at(a, i, k))
                continue;
            const char *p = cfg_param_at(i)->row->path;
            char va[1024], vb[1024];
            ck_assert_int_eq(cfg_param_get_at(a, i, k, va, sizeof va), 0);
            ck_assert_int_eq(cfg_param_get_at(b, i, k, vb, sizeof vb), 0);
            ck_assert_msg(same_value(va, vb), "%s: %s (workload %zu) '%s' became '%s'", what, p, k, va, vb);
        }
    }
    if (!axes)
        return;
    ck_assert_uint_eq(a->naxes, b->naxes);
    for (size_t x = 0; x < a->naxes; x++) {
        ck_assert_str_eq(a->axes[x].param, b->axes[x].param);
        ck_assert_uint_eq(a->axes[x].nvalues, b->axes[x].nvalues);
        ck_assert_str_eq(a->axes[x].with, b->axes[x].with);
        for (size_t v = 0; v < a->axes[x].nvalues; v++)
            ck_assert_str_eq(a->axes[x].values[v], b->axes[x].values[v]);
    }
}

static const char *const roundtrip_files[] = {
    "configs/paper/fig6.xml", "configs/paper/fig8.xml", "configs/paper/fig9.xml", "configs/paper/fig10.xml",
    "configs/paper/fig11.xml", "configs/examples/quickstart.xml", "configs/examples/spinet-load.xml", "tests/fixtures/good/z_axis.xml", "tests/fixtures/good/empirical.xml",
    "tests/fixtures/good/two_workloads.xml", "tests/fixtures/good/fabric_defaults.xml",
    "configs/examples/topologies.xml", "tests/fixtures/good/placeholder_axis.xml",
    "tests/fixtures/good/types_swept_from_default.xml",
};

START_TEST(test_roundtrip)
{
    char dir[] = "/tmp/tasknet-cfg-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char out[512], err[512];
    snprintf(out, sizeof out, "%s/config.xml", dir);
    cfg a, b;
    load_ok(&a, roundtrip_files[_i]);
    ck_assert_int_eq(cfg_write_xml(&a, out, err, sizeof err), 0);
    cfg_errors e;
    cfg_errors_init(&e);
    /* read back from another folder: relative empirical files were made absolute */
    int rc = cfg_load(&b, out, &e);
    ck_assert_msg(rc == 0, "%s: %s", roundtrip_files[_i], e.n ? e.msg[0] : "");
    cfg_errors_free(&e);
    assert_same(&a, &b, roundtrip_files[_i], 1);
    if (TT(&a)->task.send_size.kind == DIST_EMPIRICAL)
        ck_assert_double_eq(dist_mean(&TT(&a)->task.send_size), dist_mean(&TT(&b)->task.send_size));
    /* every point as it was: a parameter whose owners have defaults of their
     * own (network.mtu) keeps each fabric's (fabric_defaults.xml: written as
     * the torus's 4.096kB, the ideal fabric's points were refused and the
     * switch's cut their messages) */
    for (size_t p = 0; p < cfg_points(&a); p++) {
        cfg pa, pb;
        char what[64];
        snprintf(what, sizeof what, "point %zu", p);
        ck_assert_int_eq(cfg_point(&a, p, &pa, err, sizeof err), 0);
        ck_assert_msg(cfg_point(&b, p, &pb, err, sizeof err) == 0, "%s read back: %s", what, err);
        cfg_errors_init(&e);
        ck_assert_msg(cfg_check(&pb, &e) == 0, "%s read back: %s", what, e.n ? e.msg[0] : "");
        cfg_errors_free(&e);
        assert_same(&pa, &pb, what, 0);
        cfg_free(&pa);
        cfg_free(&pb);
    }
    cfg_free(&b);

    /* a point is written fully expanded, without the sweep */
    size_t last = cfg_points(&a) - 1;
    cfg pc;
    ck_assert_int_eq(cfg_point(&a, last, &pc, err, sizeof err), 0);
    ck_assert_int_eq(cfg_write_xml(&pc, out, err, sizeof err), 0);
    cfg_errors_init(&e);
    ck_assert_int_eq(cfg_load(&b, out, &e), 0);
    cfg_errors_free(&e);
    ck_assert_uint_eq(b.naxes, 0);
    assert_same(&pc, &b, "point", 0);
    cfg_free(&b);
    cfg_free(&a);
    cfg_free(&pc);
    unlink(out);
    rmdir(dir);
}
END_TEST

START_TEST(test_write_unwritable)
{
    cfg c;
    load_ok(&c, "configs/examples/quickstart.xml");
    char err[512];
    ck_assert_int_eq(cfg_write_xml(&c, "/nonexistent/dir/config.xml", err, sizeof err), -1);
    ck_assert_str_eq(err, "cannot write /nonexistent/dir/config.xml: No such file or directory");
    cfg_free(&c);
}
END_TEST

/* Several workloads: each its own element, parameters and paths. */
START_TEST(test_two_workloads)
{
    cfg c;
    load_ok(&c, "tests/fixtures/good/two_workloads.xml");
    ck_assert_uint_eq(c.nwl, 2);
    ck_assert_str_eq(c.wl[0].name, "jobs");
    ck_assert_str_eq(c.wl[0].type, "task-tree");
    ck_assert_str_eq(c.wl[1].name, "noise");
    ck_assert_str_eq(c.wl[1].type, "uniform-random");
    ck_assert_int_eq(c.wl[1].role, 1);
    ck_assert_int_eq(cfg_wl_priority(&c, 1), 7);
    ck_assert_int_eq(cfg_wl_priority(&c, 0), -1);
    ck_assert(cfg_wl_exclusive(&c, 0));  /* task-tree: its nodes are its own */
    ck_assert(!cfg_wl_exclusive(&c, 1)); /* uniform-random shares */
    get_eq(&c, "workload.jobs.jobs", "50");
    get_eq(&c, "workload.noise.offered-load", "0.3");
    get_eq(&c, "workload.jobs.tree.z", "4 3");
    get_eq(&c, "workload.noise.nodes", "8-15");
    char buf[64], err[512];
    /* unqualified, a workload's parameter is ambiguous */
    ck_assert_int_eq(cfg_get(&c, "workload.jobs", buf, sizeof buf), -1);
    ck_assert_int_eq(cfg_set(&c, "workload.offered-load", "0.2", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "name one, e.g. workload.jobs.offered-load"));
    ck_assert_int_eq(cfg_set(&c, "workload.noise.offered-load", "0.2", err, sizeof err), 0);
    get_eq(&c, "workload.noise.offered-load", "0.2");
    ck_assert_int_eq(cfg_set(&c, "workload.nobody.jobs", "2", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "no workload is named 'nobody'"));
    /* the nodes each workload's ranks run on */
    uint32_t map[16], n;
    unsigned char taken[16] = {0};
    ck_assert_int_eq(run_wl_nodes(&c, 0, taken, NULL, map, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 8);
    ck_assert_uint_eq(map[7], 7);
    ck_assert_int_eq(run_wl_nodes(&c, 1, taken, NULL, map, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 8);
    ck_assert_uint_eq(map[0], 8);
    /* the sweep's axis is the second workload's */
    cfg pc;
    ck_assert_int_eq(cfg_point(&c, 1, &pc, err, sizeof err), 0);
    get_eq(&pc, "workload.noise.offered-load", "0.5");
    get_eq(&pc, "workload.jobs.arrival-rate", "2000/s");
    cfg_free(&pc);
    cfg_free(&c);
}
END_TEST

/* An empty value where the default is not empty is refused, not taken as
 * "not given": written out it would be left out and read back as the
 * default (AFL++ and the empty-value scan found workload.nodes and
 * network.file; test_workload_nodes has the first). */
START_TEST(test_empty_file_with_default)
{
    cfg c;
    cfg_defaults(&c);
    char err[512];
    ck_assert_int_eq(cfg_set(&c, "network.type", "graph", err, sizeof err), 0);
    ck_assert_int_eq(cfg_set(&c, "network.file", "", err, sizeof err), -1);
    ck_assert_msg(strstr(err, "empty: expected a file name (default fabric.dot)") != NULL, "%s", err);
    ck_assert_int_eq(cfg_set(&c, "network.file", " ", err, sizeof err), -1);
    /* where nothing is the default, "" is "not given" */
    ck_assert_int_eq(cfg_set(&c, "workload.type", "dc-flows", err, sizeof err), 0);
    ck_assert_msg(cfg_set(&c, "workload.flow-list", "", err, sizeof err) == 0, "%s", err);
    cfg_free(&c);
}
END_TEST

/* The forms of workload.nodes, and random(n) drawn from the free nodes. */
START_TEST(test_workload_nodes)
{
    cfg c;
    cfg_defaults(&c);
    char err[512];
    ck_assert_int_eq(cfg_set(&c, "system.nodes", "10", err, sizeof err), 0);
    uint32_t map[10], n;
    static const struct {
        const char *v;
        uint32_t n, first, last;
    } ok[] = {
        {"all", 10, 0, 9},
        {"2-4,7", 4, 2, 7},
        {"contiguous(3,4)", 4, 3, 6},
        {"interleaved(1,2,5)", 5, 1, 9},
        {"9 0", 2, 9, 0},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        ck_assert_int_eq(cfg_set(&c, "workload.nodes", ok[i].v, err, sizeof err), 0);
        ck_assert_msg(run_wl_nodes(&c, 0, NULL, NULL, map, &n, err, sizeof err) == 0, "%s: %s", ok[i].v, err);
        ck_assert_uint_eq(n, ok[i].n);
        ck_assert_uint_eq(map[0], ok[i].first);
        ck_assert_uint_eq(map[n - 1], ok[i].last);
    }
    /* "" and " " too: the writer leaves an empty value out, so read back it
     * would become "all" (AFL++ found the round trip differing) */
    static const char *const bad_text[] = {"contiguous(3)", "random()", "1-", "x", "interleaved(1,2,0)", "", " "};
    for (size_t i = 0; i < sizeof bad_text / sizeof bad_text[0]; i++)
        ck_assert_msg(cfg_set(&c, "workload.nodes", bad_text[i], err, sizeof err) == -1, "%s accepted", bad_text[i]);
    /* forms that parse but do not fit N = 10 */
    static const char *const too_far[] = {"contiguous(8,3)", "interleaved(0,3,5)", "4-10", "random(11)"};
    for (size_t i = 0; i < sizeof too_far / sizeof too_far[0]; i++) {
        ck_assert_int_eq(cfg_set(&c, "workload.nodes", too_far[i], err, sizeof err), 0);
        ck_assert_msg(run_wl_nodes(&c, 0, NULL, NULL, map, &n, err, sizeof err) == -1, "%s fits", too_far[i]);
    }
    /* random(4) from the 7 nodes not taken: distinct, none taken, the same for the same stream */
    unsigned char taken[10] = {1, 0, 0, 1, 0, 0, 1, 0, 0, 0};
    ck_assert_int_eq(cfg_set(&c, "workload.nodes", "random(4)", err, sizeof err), 0);
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(g, 3);
    unsigned char t1[10];
    memcpy(t1, taken, 10);
    ck_assert_int_eq(run_wl_nodes(&c, 0, t1, g, map, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 4);
    for (uint32_t r = 0; r < n; r++) {
        ck_assert(!taken[map[r]]);
        for (uint32_t q = 0; q < r; q++)
            ck_assert_uint_ne(map[q], map[r]);
    }
    gsl_rng_free(g);
    cfg_free(&c);
}
END_TEST

/* One truth for the schema: configs/tasknet.rng is what the program makes
 * from the rows (`tasknet params --rng > configs/tasknet.rng` after adding a
 * parameter), and every row's attribute is in it. */
START_TEST(test_schema_file)
{
    char p[1024];
    path_of(p, sizeof p, "configs/tasknet.rng");
    FILE *f = fopen(p, "rb");
    ck_assert_msg(f != NULL, "%s", p);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char *rng = cfg_schema_rng();
    ck_assert_msg(strcmp(text, rng) == 0,
                  "configs/tasknet.rng is not what the rows make: run `./tasknet params --rng > configs/tasknet.rng`");
    for (size_t i = 0; i < cfg_param_count(); i++) {
        const param_row *r = cfg_param_at(i)->row;
        char attr[128];
        snprintf(attr, sizeof attr, "<attribute name=\"%s\">", strrchr(r->path, '.') + 1);
        ck_assert_msg(strstr(rng, attr) != NULL, "%s is not in the schema", r->path);
        /* an owner named once before its help (network.routing: each
         * topology's help already begins "<name>: ") */
        const char *pl = cfg_param_at(i)->plugin;
        if (pl) {
            char twice[128];
            snprintf(twice, sizeof twice, "%s: %s: ", pl, pl);
            ck_assert_msg(strstr(rng, twice) == NULL, "the schema names %s twice: '%s'", pl, twice);
        }
    }
    free(rng);
}
END_TEST

static Suite *config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *t = tcase_create("rejected");
    tcase_add_loop_test(t, test_bad_fixture, 0, (int)NBAD);
    tcase_add_test(t, test_every_fixture_listed);
    tcase_add_test(t, test_multiple_errors);
    tcase_add_test(t, test_rejected_value_alone);
    tcase_add_test(t, test_empty_file_with_default);
    tcase_add_test(t, test_follow_on_errors);
    tcase_add_test(t, test_error_cap);
    tcase_add_test(t, test_missing_file);
    suite_add_tcase(s, t);
    t = tcase_create("loaded");
    tcase_add_test(t, test_fig6);
    tcase_add_test(t, test_fig8);
    tcase_add_test(t, test_fig9);
    tcase_add_test(t, test_fig10);
    tcase_add_test(t, test_quickstart);
    tcase_add_test(t, test_fig11_zipped_axes);
    tcase_add_test(t, test_empirical_relative);
    tcase_add_test(t, test_value_children);
    suite_add_tcase(s, t);
    t = tcase_create("set");
    tcase_add_test(t, test_set);
    tcase_add_test(t, test_switch_latency_rows);
    tcase_add_test(t, test_routing_per_fabric);
    tcase_add_test(t, test_sweep_refusals_at_axis);
    tcase_add_test(t, test_defaults_and_check);
    tcase_add_test(t, test_point_cross_check);
    tcase_add_test(t, test_schema_file);
    tcase_add_test(t, test_two_workloads);
    tcase_add_test(t, test_workload_nodes);
    tcase_add_test(t, test_hpcc_one_path_per_flow);
    suite_add_tcase(s, t);
    t = tcase_create("write");
    tcase_add_loop_test(t, test_roundtrip, 0, (int)(sizeof roundtrip_files / sizeof roundtrip_files[0]));
    tcase_add_test(t, test_write_unwritable);
    suite_add_tcase(s, t);
    return s;
}

TH_MAIN(config_suite)
