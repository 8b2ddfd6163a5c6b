/* Figures a paper can use: the gnuplot scripts `tasknet plot` writes, read
 * back. Axis labels name the quantity and its unit with the SI prefix the
 * data calls for; categorical axes are categories (series side by side, CI
 * bars, no lines); a numeric axis with two values is not a line; --xy has
 * x error bars; heat maps for many series; the script runs from its own
 * folder and each image has its own script. Every expected string below is
 * derived by hand from the fixture written beside it. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_helpers.h"
#include "plot.h"
#include "harness.h"

static char dir[64];

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static int have_gnuplot(void) { return system("command -v gnuplot >/dev/null 2>&1") == 0; }

/* Run `tasknet plot ARGS`, return the script NAME.gp (caller frees); the
 * command's output in *out when asked. */
static char *plot_script(const char *args, const char *image, char **out)
{
    char cmd[2048], script[300];
    snprintf(cmd, sizeof cmd, "plot %s --out %s/%s", args, dir, image);
    int st = -1;
    char *o = run_tasknet(cmd, &st);
    ck_assert_msg(st == 0 || (st == 1 && !have_gnuplot()), "tasknet %s: %d\n%s", cmd, st, o);
    snprintf(script, sizeof script, "%s/%s.gp", dir, image);
    char *gp = slurp(script);
    ck_assert_msg(gp != NULL, "%s not written\n%s", script, o);
    if (out)
        *out = o;
    else
        free(o);
    return gp;
}

#define HAS(gp, s) ck_assert_msg(strstr((gp), (s)) != NULL, "no '%s' in\n%s", (s), (gp))
#define HASNT(gp, s) ck_assert_msg(strstr((gp), (s)) == NULL, "'%s' in\n%s", (s), (gp))

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/tasknet-plot-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* Labels: the metric's name read as words, its statistic first, its
 * message or flow class last, its unit from the name's suffix; the prefix
 * puts the largest value in [1, 1000). */
START_TEST(test_labels)
{
    char name[256], label[300];
    const char *unit;
    plot_metric_quantity("job_time_mean_s", name, sizeof name, &unit);
    ck_assert_str_eq(name, "mean job time");
    ck_assert_str_eq(unit, "s");
    /* 0.0042 s = 4.2 ms: factor 10^3 */
    ck_assert_double_eq(plot_axis_label(name, unit, 0.0042, label, sizeof label), 1e3);
    ck_assert_str_eq(label, "mean job time (ms)");
    plot_metric_quantity("energy_per_bit_j", name, sizeof name, &unit);
    ck_assert_str_eq(unit, "J");
    /* 1.2e-11 J = 12 pJ: factor 10^12 */
    ck_assert_double_eq(plot_axis_label(name, unit, 1.2e-11, label, sizeof label), 1e12);
    ck_assert_str_eq(label, "energy per bit (pJ)");
    plot_metric_quantity("msg_latency_control_p99_s", name, sizeof name, &unit);
    /* 3.1e-6 s = 3.1 us */
    ck_assert_double_eq(plot_axis_label(name, unit, 3.1e-6, label, sizeof label), 1e6);
    ck_assert_str_eq(label, "99th-percentile message latency, control messages (µs)");
    plot_metric_quantity("fct_slowdown_small_mean", name, sizeof name, &unit);
    ck_assert_str_eq(unit, "");
    ck_assert_double_eq(plot_axis_label(name, unit, 292.9, label, sizeof label), 1);
    ck_assert_str_eq(label, "mean FCT slowdown, small flows");
    /* a metric of the workload named bg among several */
    plot_metric_quantity("bg.fct_small_mean_s", name, sizeof name, &unit);
    ck_assert_str_eq(name, "bg: mean FCT, small flows");
    ck_assert_str_eq(unit, "s");
    plot_metric_quantity("iteration_time_first_s", name, sizeof name, &unit);
    /* 1.1 s stays in seconds; 2400 s too (no ks) */
    ck_assert_double_eq(plot_axis_label(name, unit, 2400, label, sizeof label), 1);
    ck_assert_str_eq(label, "first iteration time (s)");
    plot_metric_quantity("bytes_delivered", name, sizeof name, &unit);
    ck_assert_str_eq(unit, "B");
    /* 3.5e6 B = 3.5 MB: factor 10^-6; bytes have no sub-unit: 0.5 B stays B */
    ck_assert_double_eq_tol(plot_axis_label(name, unit, 3.5e6, label, sizeof label), 1e-6, 1e-20);
    ck_assert_str_eq(label, "bytes delivered (MB)");
    ck_assert_double_eq(plot_axis_label(name, unit, 0.5, label, sizeof label), 1);
    plot_metric_quantity("bandwidth_bps", name, sizeof name, &unit);
    ck_assert_str_eq(unit, "b/s");
    plot_metric_quantity("beta_per_s", name, sizeof name, &unit);
    ck_assert_str_eq(unit, "1/s");
    ck_assert_str_eq(name, "beta");
    plot_metric_quantity("speedup", name, sizeof name, &unit);
    ck_assert_str_eq(name, "speedup");
    ck_assert_str_eq(unit, "");
    /* parameters: the unit from the row's type; names are categories */
    int numeric;
    plot_param_quantity("network.bandwidth", name, sizeof name, &unit, &numeric);
    ck_assert_str_eq(name, "bandwidth");
    ck_assert_str_eq(unit, "b/s");
    ck_assert_int_eq(numeric, 1);
    /* 4e10 b/s = 40 Gb/s */
    ck_assert_double_eq_tol(plot_axis_label(name, unit, 4e10, label, sizeof label), 1e-9, 1e-24);
    ck_assert_str_eq(label, "bandwidth (Gb/s)");
    plot_param_quantity("network.type", name, sizeof name, &unit, &numeric);
    ck_assert_str_eq(name, "fabric");
    ck_assert_int_eq(numeric, 0);
    plot_param_quantity("system.nodes", name, sizeof name, &unit, &numeric);
    ck_assert_str_eq(name, "nodes");
    ck_assert_int_eq(numeric, 1);
    ck_assert_str_eq(unit, "");
    /* uniform-random's offered load and the throughput it accepts are
     * fractions of B (tasknet params, tasknet metrics): the axis says so */
    plot_param_quantity("workload.offered-load", name, sizeof name, &unit, &numeric);
    ck_assert_str_eq(name, "offered load (fraction of link bandwidth)");
    plot_metric_quantity("throughput", name, sizeof name, &unit);
    ck_assert_str_eq(name, "accepted throughput (fraction of link bandwidth)");
    ck_assert_str_eq(unit, "");
}
END_TEST

/* A categorical x (network.type) with two series (workload.queue): the
 * categories at 0 and 1 in the sweep's order, each series 0.8 / 2 = 0.4
 * apart around them (offsets -0.2 and +0.2), error bars and no lines; the
 * y axis in ms (largest mean 0.0042 s), so columns 3 and 4 are scaled by
 * 1000; the empty CI cell (one replica) is drawn as no bar (0) and said. */
START_TEST(test_categories)
{
    write_file("summary.csv", "point,replicas,network.type,workload.queue,job_time_mean_s_mean,job_time_mean_s_ci95\n"
                              "0,5,spinet,fifo,0.0042,0.0003\n"
                              "1,5,spinet,priority,0.0031,0.0002\n"
                              "2,5,electrical-switch,fifo,0.0025,0.0001\n"
                              "3,1,electrical-switch,priority,0.0020,\n");
    char args[300], *out;
    snprintf(args, sizeof args, "%s --x network.type --y job_time_mean_s --series workload.queue", dir);
    char *gp = plot_script(args, "cat.png", &out);
    HAS(gp, "set xlabel 'fabric' noenhanced\n");
    HAS(gp, "set ylabel 'mean job time (ms)' noenhanced\n");
    HAS(gp, "set xtics ('spinet' 0, 'electrical-switch' 1) noenhanced\n");
    HAS(gp, "set key title 'queue' noenhanced\n");
    HAS(gp, "$s0 << EOD\n-0.2 \"spinet\" 0.0042 0.0003\n0.8 \"electrical-switch\" 0.0025 0.0001\nEOD\n");
    HAS(gp, "$s1 << EOD\n0.2 \"spinet\" 0.0031 0.0002\n1.2 \"electrical-switch\" 0.0020 0\nEOD\n");
    HAS(gp, "$s0 using 1:($3*1000):($4*1000) with yerrorbars ");
    HAS(gp, " title 'fifo'");
    HAS(gp, " title 'priority'");
    HASNT(gp, "lines");
    /* no result folder anywhere (the output is the image's name alone), no title */
    HASNT(gp, dir);
    HASNT(gp, "set title");
    HAS(gp, "set output 'cat.png'\n");
    ck_assert_msg(strstr(out, "1 point without a confidence interval") != NULL, "%s", out);
    free(out);
    free(gp);
    /* --bars: boxes at the same places, their CI bars over them */
    snprintf(args, sizeof args, "%s --x network.type --y job_time_mean_s --series workload.queue --bars", dir);
    gp = plot_script(args, "bars.png", NULL);
    HAS(gp, "set boxwidth 0.36 absolute\n"); /* 0.9 x 0.4 */
    HAS(gp, "$s0 using 1:($3*1000) with boxes lc 1 title 'fifo', \\\n     $s0 using 1:($3*1000):($4*1000) with "
            "yerrorbars");
    free(gp);
}
END_TEST

/* A numeric axis with two measured values is drawn as points with tics
 * at the two values, not as a line through values nobody measured; --lines
 * joins them. Energy per bit 1.2e-11 J is 12 pJ: factor 10^12. Bandwidths in
 * Gb/s (4e10 b/s is the largest). */
START_TEST(test_two_values)
{
    write_file("summary.csv", "point,replicas,network.bandwidth,energy_per_bit_j_mean,energy_per_bit_j_ci95\n"
                              "0,3,10Gb/s,1.2e-11,1e-12\n"
                              "1,3,40Gb/s,8e-12,5e-13\n");
    char args[300];
    snprintf(args, sizeof args, "%s --x network.bandwidth --y energy_per_bit_j", dir);
    char *gp = plot_script(args, "two.png", NULL);
    HAS(gp, "set xlabel 'bandwidth (Gb/s)' noenhanced\n");
    HAS(gp, "set ylabel 'energy per bit (pJ)' noenhanced\n");
    HAS(gp, "set xtics (10, 40)\n");
    HAS(gp, "$s0 << EOD\n10 1.2e-11 1e-12\n40 8e-12 5e-13\nEOD\n");
    HAS(gp, "$s0 using 1:($2*1000000000000):($3*1000000000000) with yerrorbars ");
    HASNT(gp, "yerrorlines");
    HAS(gp, "unset key\n"); /* one curve: its name is the y label */
    free(gp);
    snprintf(args, sizeof args, "%s --x network.bandwidth --y energy_per_bit_j --lines", dir);
    gp = plot_script(args, "two-lines.png", NULL);
    HAS(gp, " with yerrorlines ");
    free(gp);
    /* one replica each: no CI anywhere, so no bars and no bar in the key */
    write_file("summary.csv", "point,replicas,network.bandwidth,energy_per_bit_j_mean,energy_per_bit_j_ci95\n"
                              "0,1,10Gb/s,1.2e-11,\n"
                              "1,1,40Gb/s,8e-12,\n");
    snprintf(args, sizeof args, "%s --x network.bandwidth --y energy_per_bit_j --lines", dir);
    gp = plot_script(args, "no-ci.png", NULL);
    HAS(gp, "$s0 using 1:($2*1000000000000) with linespoints ");
    HASNT(gp, "error");
    free(gp);
}
END_TEST

/* --xy: the x metric's CI as x error bars; x is a ratio (no unit), y a
 * latency of at most 2.5e-6 s, in us. */
START_TEST(test_xy)
{
    write_file("summary.csv",
               "point,replicas,network.bandwidth,network_utilization_mean,network_utilization_ci95,"
               "msg_latency_mean_s_mean,msg_latency_mean_s_ci95\n"
               "0,3,10Gb/s,0.5,0.05,2.5e-6,1e-7\n"
               "1,3,40Gb/s,0.125,0.01,1e-6,2e-8\n");
    char args[300];
    snprintf(args, sizeof args, "%s --xy network_utilization,msg_latency_mean_s", dir);
    char *gp = plot_script(args, "xy.png", NULL);
    HAS(gp, "set xlabel 'network utilisation' noenhanced\n");
    HAS(gp, "set ylabel 'mean message latency (µs)' noenhanced\n");
    HAS(gp, "$s0 << EOD\n0.5 2.5e-6 0.05 1e-7\nEOD\n$s1 << EOD\n0.125 1e-6 0.01 2e-8\nEOD\n");
    HAS(gp, "$s0 using 1:($2*1000000):3:($4*1000000) with xyerrorbars ");
    HAS(gp, " title '10Gb/s'");
    free(gp);
}
END_TEST

/* Fabrics compared in one sweep (issue 23's first reproducer): the axes
 * varying with network.type hold one value per fabric ("-" where a fabric
 * has none), so with --x network.type each is a function of x and splits
 * no curve: one series, no key of placeholders ('8 8, -, -' before). The
 * three points in the summary's order, at categories 0, 1, 2. Named with
 * --series, an axis still splits: arity's values "-" and "4" are two. */
START_TEST(test_axes_with_x_no_series)
{
    write_file("summary.csv", "point,replicas,network.type,network.dims,network.arity,"
                              "msg_latency_mean_s_mean,msg_latency_mean_s_ci95\n"
                              "0,2,torus,8 8,-,2e-6,1e-7\n"
                              "1,2,fat-tree,-,4,3e-6,1e-7\n"
                              "2,2,leaf-spine,-,-,4e-6,2e-7\n");
    char args[300];
    snprintf(args, sizeof args, "%s --x network.type --y msg_latency_mean_s", dir);
    char *gp = plot_script(args, "fabrics.png", NULL);
    HAS(gp, "$s0 << EOD\n0 \"torus\" 2e-6 1e-7\n1 \"fat-tree\" 3e-6 1e-7\n2 \"leaf-spine\" 4e-6 2e-7\nEOD\n");
    HASNT(gp, "$s1");
    HASNT(gp, "title '8 8");
    HAS(gp, "unset key\n");
    free(gp);
    snprintf(args, sizeof args, "%s --x network.type --y msg_latency_mean_s --series network.arity", dir);
    gp = plot_script(args, "fabrics-arity.png", NULL);
    HAS(gp, "$s1");
    HASNT(gp, "$s2");
    free(gp);
}
END_TEST

/* A named workload's metrics are "<w>.<metric>" (alone or beside others):
 * a bare metric name means the one workload that has it, here "bg"'s
 * fct_mean_s (train has none); with two that have it (a.throughput and
 * b.throughput) the bare name is refused, naming both. --xy resolves both
 * of its names the same way. */
START_TEST(test_bare_metric_names)
{
    write_file("summary.csv", "point,replicas,workload.bg.load,train.iteration_time_mean_s_mean,"
                              "train.iteration_time_mean_s_ci95,bg.fct_mean_s_mean,bg.fct_mean_s_ci95,"
                              "a.throughput_mean,a.throughput_ci95,b.throughput_mean,b.throughput_ci95\n"
                              "0,3,0.1,2.5,0.1,2e-4,1e-5,0.5,0.01,0.25,0.02\n"
                              "1,3,0.5,2.75,0.1,8e-4,2e-5,0.4,0.01,0.2,0.02\n");
    char args[300];
    snprintf(args, sizeof args, "%s --x workload.bg.load --y fct_mean_s", dir);
    char *gp = plot_script(args, "bare.png", NULL);
    HAS(gp, "set ylabel 'bg: mean FCT (µs)' noenhanced\n");
    HAS(gp, "$s0 << EOD\n0 \"0.1\" 2e-4 1e-5\n1 \"0.5\" 8e-4 2e-5\nEOD\n"); /* bg.fct_mean_s's cells */
    free(gp);
    snprintf(args, sizeof args, "%s --xy iteration_time_mean_s,fct_mean_s", dir);
    gp = plot_script(args, "bare-xy.png", NULL);
    HAS(gp, "$s0 << EOD\n2.5 2e-4 0.1 1e-5\nEOD\n");
    free(gp);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "plot %s --x workload.bg.load --y throughput --out %s/amb.png", dir, dir);
    int st = -1;
    char *o = run_tasknet(cmd, &st);
    ck_assert_msg(st == 1 && strstr(o, "several workloads have metric throughput: a.throughput b.throughput; "
                                       "name one"),
                  "%d: %s", st, o);
    free(o);
}
END_TEST

/* --heatmap: the metric over two swept parameters, as colours; numeric
 * columns sorted by value (4 before 16 although the summary lists 16
 * first), rows in the sweep's order. */
START_TEST(test_heatmap)
{
    write_file("summary.csv", "point,replicas,system.nodes,network.bandwidth,speedup_mean,speedup_ci95\n"
                              "0,3,16,10Gb/s,1.5,0.1\n"
                              "1,3,16,40Gb/s,2.5,0.1\n"
                              "2,3,4,10Gb/s,1.1,0.1\n"
                              "3,3,4,40Gb/s,1.2,0.1\n");
    char args[300];
    snprintf(args, sizeof args, "%s --x system.nodes --series network.bandwidth --y speedup --heatmap", dir);
    char *gp = plot_script(args, "map.png", NULL);
    HAS(gp, "set xtics ('4' 0, '16' 1) noenhanced\n");
    HAS(gp, "set ytics ('10Gb/s' 0, '40Gb/s' 1) noenhanced\n");
    HAS(gp, "set ylabel 'bandwidth' noenhanced\nset cblabel 'speedup' noenhanced\n");
    HAS(gp, "$map << EOD\n1 0 1.5\n1 1 2.5\n0 0 1.1\n0 1 1.2\nEOD\n");
    HAS(gp, "with boxxyerror fillstyle solid 1.0 noborder fillcolor palette");
    free(gp);
    /* two parameters besides x: refused (which one makes the rows?) */
    write_file("summary.csv", "point,replicas,a,b,c,m_mean,m_ci95\n0,1,0,0,0,1,0\n");
    int st;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "plot %s --x a --y m --heatmap --out %s/no.png", dir, dir);
    char *out = run_tasknet(cmd, &st);
    ck_assert_int_eq(st, 1);
    ck_assert_msg(strstr(out, "--heatmap needs exactly one swept parameter besides --x") != NULL, "%s", out);
    free(out);
}
END_TEST

/* --counts --heatmap: one row per point (labelled by its swept values,
 * the first at the top), a column per x value, the colour the point's
 * fraction: point 0 has 3 + 1 = 4 flows (3/4 at weight 1, 1/4 at 2),
 * point 1 has 2 + 2 (1/2 at 2, 1/2 at 5); columns 1, 2, 5 -> 0, 1, 2. */
START_TEST(test_counts_heatmap)
{
    write_file("summary.csv", "point,replicas,workload.pattern,m_mean,m_ci95\n0,1,ring,1,0\n1,1,rand,2,0\n");
    write_file("hist.csv", "point,weight,flows\n0,1,3\n0,2,1\n1,2,2\n1,5,2\n");
    char args[300];
    snprintf(args, sizeof args, "%s --counts hist --heatmap", dir);
    char *gp = plot_script(args, "hist.png", NULL);
    HAS(gp, "set ytics ('ring' 0, 'rand' 1) noenhanced\n");
    HAS(gp, "set xtics ('1' 0, '2' 1, '5' 2) noenhanced\n");
    HAS(gp, "set ylabel 'pattern' noenhanced\nset cblabel 'fraction of flows' noenhanced\n");
    HAS(gp, "set yrange [1.5:-0.5]\n");
    HAS(gp, "$map << EOD\n0 0 0.75\n1 0 0.25\n1 1 0.5\n2 1 0.5\nEOD\n");
    free(gp);
}
END_TEST

/* A log axis spans every CI bar, not only the means (the README's
 * web-search figure clipped fifo's bar): y from the lowest positive bar
 * end / 1.3 to the highest x 1.3. By hand: fifo 300 + 150 = 450 is the
 * highest end, 450 x 1.3 = 585; srpt 1.3 - 0.26 = 1.04 the lowest, / 1.3 =
 * 0.8; round-robin's 60 - 220 < 0 cannot be drawn on a log axis (its bar
 * runs to the bottom edge, and plot says so); it does not set the range. */
START_TEST(test_log_range_holds_ci)
{
    write_file("summary.csv", "point,replicas,network.host-scheduling,fct_slowdown_small_mean_mean,"
                              "fct_slowdown_small_mean_ci95\n"
                              "0,2,fifo,300,150\n1,2,round-robin,60,220\n2,2,srpt,1.3,0.26\n");
    char args[300], *out;
    snprintf(args, sizeof args, "%s --x network.host-scheduling --y fct_slowdown_small_mean --logy", dir);
    char *gp = plot_script(args, "ws.png", &out);
    HAS(gp, "set yrange [0.8:585]\n");
    /* 1-2-5 tics of the decades 0.1 to 100 inside the range */
    HAS(gp, "set ytics (1, 2, 5, 10, 20, 50, 100, 200, 500)\n");
    ck_assert_msg(strstr(out, "1 CI bar reaches 0 or below") != NULL, "%s", out);
    free(out);
    free(gp);
    /* --xy on log axes: the x CI too. x: 0.5 +- 0.3 and 0.1 +- 0.05: from
     * 0.05 / 1.3 = 0.0384615 to 0.8 x 1.3 = 1.04; y (a ratio): 2 +- 1 and
     * 4 +- 0.5: from 1 / 1.3 = 0.769231 to 4.5 x 1.3 = 5.85 */
    write_file("summary.csv", "point,replicas,network.bandwidth,network_utilization_mean,network_utilization_ci95,"
                              "speedup_mean,speedup_ci95\n"
                              "0,3,10Gb/s,0.5,0.3,2,1\n1,3,40Gb/s,0.1,0.05,4,0.5\n");
    snprintf(args, sizeof args, "%s --xy network_utilization,speedup --logx --logy", dir);
    gp = plot_script(args, "xylog.png", NULL);
    HAS(gp, "set xrange [0.0384615:1.04]\n");
    HAS(gp, "set yrange [0.769231:5.85]\n");
    free(gp);
}
END_TEST

/* --change P=BASE --heatmap: the thesis' Fig. 5.19 operating map, each
 * cell the change in % at priority 1 from priority 0 with the same flow
 * rate and compute time. By hand: (2.5 - 2) / 2 = +25 %, (3 - 4) / 4 =
 * -25 %, (3 - 2) / 2 = +50 %, (5 - 5) / 5 = 0 %; the base points (priority 0)
 * are not drawn; columns flow rate 23/s, 46/s, rows compute time 280ms,
 * 560ms. Ratios of means get no CI bars. */
START_TEST(test_change_map)
{
    write_file("summary.csv",
               "point,replicas,workload.bg.flow-rate,workload.train.compute-time,workload.train.priority,"
               "iteration_time_mean_s_mean,iteration_time_mean_s_ci95\n"
               "0,3,23/s,280ms,0,2,0.1\n1,3,23/s,280ms,1,2.5,0.1\n2,3,23/s,560ms,0,4,0.1\n3,3,23/s,560ms,1,3,0.1\n"
               "4,3,46/s,280ms,0,2,0.1\n5,3,46/s,280ms,1,3,0.1\n6,3,46/s,560ms,0,5,0.1\n7,3,46/s,560ms,1,5,0.1\n");
    char args[600], *out;
    snprintf(args, sizeof args,
             "%s --x workload.bg.flow-rate --series workload.train.compute-time --y iteration_time_mean_s "
             "--change workload.train.priority=0 --heatmap", dir);
    char *gp = plot_script(args, "change-map.png", &out);
    /* 51 characters: two lines, broken at the space nearest the middle (25) */
    HAS(gp, "set cblabel 'change in mean iteration'.\"\\n\".'time from priority 0 (%)' noenhanced\n");
    HAS(gp, "set xtics ('23/s' 0, '46/s' 1) noenhanced\n");
    HAS(gp, "set ytics ('280ms' 0, '560ms' 1) noenhanced\n");
    HAS(gp, "$map << EOD\n0 0 25\n0 1 -25\n1 0 50\n1 1 0\nEOD\n");
    ck_assert_msg(strstr(out, "drawn without CI bars") != NULL, "%s", out);
    free(out);
    free(gp);
    /* as points: the same changes, a series per compute time, bars of 0 */
    snprintf(args, sizeof args,
             "%s --x workload.bg.flow-rate --series workload.train.compute-time --y iteration_time_mean_s "
             "--change workload.train.priority=0", dir);
    gp = plot_script(args, "change.png", NULL);
    HAS(gp, "set ylabel 'change in mean iteration time from priority 0 (%)' noenhanced\n");
    HAS(gp, "25 0\n");
    HAS(gp, "-25 0\n");
    HASNT(gp, "priority, ");
    free(gp);
    /* refused: the x axis as PARAM, a PARAM not swept, a BASE no point has */
    int st;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "plot %s --x workload.bg.flow-rate --y iteration_time_mean_s "
             "--change workload.bg.flow-rate=23/s --out %s/no.png", dir, dir);
    out = run_tasknet(cmd, &st);
    ck_assert_int_eq(st, 1);
    ck_assert_msg(strstr(out, "PARAM is the x axis") != NULL, "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "plot %s --x workload.bg.flow-rate --y iteration_time_mean_s "
             "--change system.nodes=4 --out %s/no.png", dir, dir);
    out = run_tasknet(cmd, &st);
    ck_assert_int_eq(st, 1);
    ck_assert_msg(strstr(out, "not a swept parameter of this folder") != NULL, "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "plot %s --x workload.bg.flow-rate --y iteration_time_mean_s "
             "--change workload.train.priority=7 --out %s/no.png", dir, dir);
    out = run_tasknet(cmd, &st);
    ck_assert_int_eq(st, 1);
    ck_assert_msg(strstr(out, "no point has 7") != NULL, "%s", out);
    free(out);
}
END_TEST

/* Count occurrences of s in text. */
static size_t count_of(const char *text, const char *s)
{
    size_t n = 0;
    for (const char *p = strstr(text, s); p; p = strstr(p + 1, s))
        n++;
    return n;
}

/* --counts --panels: small multiples on shared axes. Four points (2
 * fabrics x 2 patterns); their fractions by hand: point 0 has 3 + 1 = 4
 * flows (0.75 at weight 1, 0.25 at 2), point 1 2 + 2 (0.5 at 2, 0.5 at 5),
 * point 2 4 (1 at 1), point 3 1 + 3 (0.25 at 1, 0.75 at 2). */
START_TEST(test_counts_panels)
{
    write_file("summary.csv", "point,replicas,network.type,workload.pattern,m_mean,m_ci95\n"
                              "0,1,spinet,ring,1,\n1,1,spinet,rand,1,\n"
                              "2,1,electrical-switch,ring,1,\n3,1,electrical-switch,rand,1,\n");
    write_file("hist.csv", "point,weight,flows\n0,1,3\n0,2,1\n1,2,2\n1,5,2\n2,1,4\n3,1,1\n3,2,3\n");
    char args[300];
    snprintf(args, sizeof args, "%s --counts hist --panels", dir);
    char *gp = plot_script(args, "panels.png", NULL);
    /* 4 panels: the smallest square grid that holds them is 2 x 2 */
    HAS(gp, "set multiplot layout 2,2 rowsfirst ");
    ck_assert_uint_eq(count_of(gp, "\nplot "), 4);
    HAS(gp, "unset multiplot\n");
    /* shared axes: x from the smallest value 1 to the largest 5, half the
     * closest values' gap (1) either side; y up to the largest fraction (1,
     * point 2) plus 10 % */
    HAS(gp, "set xrange [0.5:5.5]\n");
    HAS(gp, "set yrange [0:1.1]\n");
    ck_assert_uint_eq(count_of(gp, "set xrange"), 1);
    /* each point's fractions, and its panel titled by its swept values, in the sweep's order */
    HAS(gp, "$s0 << EOD\n1 0.75\n2 0.25\nEOD\n");
    HAS(gp, "$s1 << EOD\n2 0.5\n5 0.5\nEOD\n");
    HAS(gp, "$s2 << EOD\n1 1\nEOD\n");
    HAS(gp, "$s3 << EOD\n1 0.25\n2 0.75\nEOD\n");
    HAS(gp, "set title 'spinet, ring'\nset format x ''\nset format y '%g'\n"
            "plot $s0 using ($1+0):2:($1-0.4):($1+0.4):(0):2 with boxxyerror lc 1 notitle\n");
    HAS(gp, "set title 'spinet, rand'\nset format x ''\nset format y ''\nplot $s1 ");
    /* the bottom row carries the x tic labels, the left column the y ones */
    HAS(gp, "set title 'electrical-switch, ring'\nset format x '%g'\nset format y '%g'\nplot $s2 ");
    HAS(gp, "set title 'electrical-switch, rand'\nset format x '%g'\nset format y ''\nplot $s3 ");
    /* the axis labels once, for the grid */
    HAS(gp, "set label 101 'weight' at screen");
    HAS(gp, "set label 102 'fraction of flows' at screen");
    ck_assert_uint_eq(count_of(gp, "unset label 101"), 1);
    free(gp);
    /* --series network.type: a panel per pattern, the fabrics side by side
     * in each (two bars 0.8 / 2 = 0.4 wide, centred 0.2 either side of the
     * value); 2 panels fit a 2 x 1 grid; the key names the fabrics once */
    snprintf(args, sizeof args, "%s --counts hist --panels --series network.type", dir);
    gp = plot_script(args, "panels2.png", NULL);
    HAS(gp, "set multiplot layout 1,2 rowsfirst ");
    ck_assert_uint_eq(count_of(gp, "\nplot "), 2);
    HAS(gp, "set title 'ring'\nset format x '%g'\nset format y '%g'\n"
            "plot $s0 using ($1-0.2):2:($1-0.4):($1+0):(0):2 with boxxyerror lc 1 notitle, "
            "$s2 using ($1+0.2):2:($1+0):($1+0.4):(0):2 with boxxyerror lc 2 notitle\n");
    HAS(gp, "set title 'rand'\nset format x '%g'\nset format y ''\n"
            "plot $s1 using ($1-0.2):2:($1-0.4):($1+0):(0):2 with boxxyerror lc 1 notitle, "
            "$s3 using ($1+0.2):2:($1+0):($1+0.4):(0):2 with boxxyerror lc 2 notitle\n");
    HAS(gp, "set label 103 'fabric' at screen");
    HAS(gp, "set label 201 'spinet' at screen");
    HAS(gp, "set label 202 'electrical-switch' at screen");
    free(gp);
    /* refusals: a --series that is not swept, --panels without --counts */
    int st;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "plot %s --counts hist --panels --series system.nodes --out %s/no.png", dir, dir);
    char *out = run_tasknet(cmd, &st);
    ck_assert_int_eq(st, 1);
    ck_assert_msg(strstr(out, "--series system.nodes: not one swept parameter") != NULL, "%s", out);
    free(out);
    snprintf(cmd, sizeof cmd, "plot %s --y m --panels --out %s/no.png", dir, dir);
    out = run_tasknet(cmd, &st);
    ck_assert_int_eq(st, 2);
    ck_assert_msg(strstr(out, "--panels draws a count file") != NULL, "%s", out);
    free(out);
}
END_TEST

/* --timeline of a trace with two workloads (a on processes 0-2, b on 3-5,
 * 2 nodes each): a group of lanes per workload, named at the right, the
 * first at the top. By hand: groups are stacked from the bottom, b first
 * at y 0 (its nodes 0, 1; no spans), then one empty row, then a from y 3:
 * its span row (allreduce) at 3 below its nodes 0, 1 at 4, 5; the axis
 * runs to the top row 5 + 0.8. Times are us (largest end 20 + 3 = 23 us:
 * the axis in µs, factor 1). */
START_TEST(test_timeline_workloads)
{
    write_file("two.json",
               "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
               "{\"ph\":\"M\",\"pid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"compute\"}},\n"
               "{\"ph\":\"M\",\"pid\":0,\"tid\":0,\"name\":\"thread_name\",\"args\":{\"name\":\"node 0\"}},\n"
               "{\"ph\":\"M\",\"pid\":0,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"node 1\"}},\n"
               "{\"ph\":\"M\",\"pid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"a: compute\"}},\n"
               "{\"ph\":\"M\",\"pid\":3,\"name\":\"process_name\",\"args\":{\"name\":\"b: compute\"}},\n"
               "{\"ph\":\"M\",\"pid\":3,\"tid\":0,\"name\":\"thread_name\",\"args\":{\"name\":\"node 0\"}},\n"
               "{\"ph\":\"M\",\"pid\":3,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"node 1\"}},\n"
               "{\"ph\":\"X\",\"pid\":0,\"tid\":0,\"cat\":\"compute\",\"name\":\"forward 0\",\"ts\":0.000000,\"dur\":10.000000},\n"
               "{\"ph\":\"X\",\"pid\":0,\"tid\":1,\"cat\":\"compute\",\"name\":\"backward 0\",\"ts\":5.000000,\"dur\":10.000000},\n"
               "{\"ph\":\"X\",\"pid\":1,\"tid\":0,\"cat\":\"message\",\"name\":\"m\",\"ts\":10.000000,\"dur\":2.000000,"
               "\"args\":{\"src\":0,\"dst\":1,\"bytes\":8}},\n"
               "{\"ph\":\"b\",\"pid\":2,\"tid\":0,\"cat\":\"allreduce\",\"name\":\"f0\",\"id\":1,\"ts\":10.000000},\n"
               "{\"ph\":\"e\",\"pid\":2,\"tid\":0,\"cat\":\"allreduce\",\"name\":\"f0\",\"id\":1,\"ts\":14.000000},\n"
               "{\"ph\":\"X\",\"pid\":3,\"tid\":1,\"cat\":\"compute\",\"name\":\"compute\",\"ts\":0.000000,\"dur\":20.000000},\n"
               "{\"ph\":\"X\",\"pid\":4,\"tid\":1,\"cat\":\"message\",\"name\":\"m\",\"ts\":20.000000,\"dur\":3.000000,"
               "\"args\":{\"src\":1,\"dst\":0,\"bytes\":8}}\n]}\n");
    char args[1000];
    snprintf(args, sizeof args, "--timeline %s/two.json", dir);
    char *gp = plot_script(args, "two.png", NULL);
    HAS(gp, "set xlabel 'time (µs)' noenhanced\n");
    HAS(gp, "set yrange [-0.8:5.8]\n");
    HAS(gp, "set ytics ('0' 4, '1' 5, 'allreduce' 3, '0' 0, '1' 1) noenhanced\n");
    /* the names centred on their groups: a over 3..5, b over 0..1; a line below a */
    HAS(gp, "set label 1 'a' at graph 1.015, first 4 center rotate by -90 noenhanced\n");
    HAS(gp, "set arrow 1 from graph 0, first 2 to graph 1, first 2 nohead");
    HAS(gp, "set label 2 'b' at graph 1.015, first 0.5 center rotate by -90 noenhanced\n");
    /* phases: start, end, row, colour (1 forward, 2 backward); messages:
     * start, sender's row, length, rows to the receiver; spans: start, end, row */
    HAS(gp, "$phases << EOD\n0.000000 10.000000 4 1\n5.000000 15.000000 5 2\n0.000000 20.000000 1 1\nEOD\n");
    HAS(gp, "$spans << EOD\n10.000000 14.000000 3\nEOD\n");
    HAS(gp, "$messages << EOD\n10.000000 4 2.000000 1\n20.000000 1 3.000000 -1\nEOD\n");
    free(gp);
    /* a real run of two workloads (the thesis' training beside web search,
     * cut to 0.3 s): the trace names both, the timeline draws both groups */
    snprintf(args, sizeof args,
             "run configs/paper/thesis-coexistence.xml --runs 1 --set run.replicas=1 --set workload.train.stop-time=0.3s "
             "--set workload.bg.duration=0.3s --set workload.bg.warmup=0s --set workload.bg.cooldown=0s "
             "--set workload.train.compute-time=280ms --set workload.bg.flow-rate=46/s -q --trace %s/coex.json", dir);
    int st;
    char *out = run_tasknet(args, &st);
    ck_assert_msg(st == 0, "%s", out);
    free(out);
    snprintf(args, sizeof args, "--timeline %s/coex.json", dir);
    gp = plot_script(args, "coex.png", NULL);
    HAS(gp, "set label 1 'train' at graph 1.015");
    HAS(gp, "set label 2 'bg' at graph 1.015");
    /* dc-flows' spans: a row per sender, numbered */
    HAS(gp, "'flow 0' ");
    HAS(gp, "'allreduce' ");
    free(gp);
}
END_TEST

/* The script is NAME.EXT.gp: a .pdf and a .svg of the same name keep their
 * own; it names the image alone and runs from its own folder. */
START_TEST(test_script_files)
{
    write_file("summary.csv", "point,replicas,network.bandwidth,speedup_mean,speedup_ci95\n"
                              "0,3,10Gb/s,1.5,0.1\n1,3,20Gb/s,1.7,0.1\n2,3,40Gb/s,2,0.1\n");
    char args[300];
    snprintf(args, sizeof args, "%s --y speedup", dir);
    char *svg = plot_script(args, "x.svg", NULL), *pdf = plot_script(args, "x.pdf", NULL);
    HAS(svg, "set terminal svg ");
    HAS(svg, "set output 'x.svg'\n");
    HAS(pdf, "set terminal pdfcairo ");
    HAS(pdf, "set output 'x.pdf'\n");
    /* three values: a line through them */
    HAS(svg, " with yerrorlines ");
    free(svg);
    free(pdf);
    char *png = plot_script(args, "x.png", NULL);
    free(png);
    if (have_gnuplot()) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "cd / && rm '%s/x.png' && cd '%s' && gnuplot x.png.gp 2>&1 && test -s x.png", dir,
                 dir);
        ck_assert_int_eq(system(cmd), 0);
    }
}
END_TEST

static Suite *plot_suite(void)
{
    Suite *s = suite_create("plot");
    TCase *tc = tcase_create("scripts");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_labels);
    tcase_add_test(tc, test_categories);
    tcase_add_test(tc, test_two_values);
    tcase_add_test(tc, test_xy);
    tcase_add_test(tc, test_bare_metric_names);
    tcase_add_test(tc, test_axes_with_x_no_series);
    tcase_add_test(tc, test_heatmap);
    tcase_add_test(tc, test_counts_heatmap);
    tcase_add_test(tc, test_counts_panels);
    tcase_add_test(tc, test_change_map);
    tcase_add_test(tc, test_log_range_holds_ci);
    tcase_add_test(tc, test_timeline_workloads);
    tcase_add_test(tc, test_script_files);
    suite_add_tcase(s, tc);
    return s;
}

TH_MAIN(plot_suite)
