/* Live recorder: libtracefs sets up a private instance; libtracecmd's (exported, but
 * privately declared) recorder and output writer produce a trace.dat that
 * `trace-cmd report` and KernelShark open. Recipe and pitfalls: shared notes stack.md. */
#define _GNU_SOURCE
#include "irqflow/capture/recorder.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>
#include <tracefs.h>

/* From trace-cmd-private.h (trace-cmd 3.1.6), exported by libtracecmd.so.1. */
struct tracecmd_output;
struct tracecmd_option;
struct tracecmd_event_list;
struct tracecmd_output *tracecmd_output_create(const char *output_file);
int tracecmd_output_set_version(struct tracecmd_output *handle, int file_version);
int tracecmd_output_write_headers(struct tracecmd_output *handle, struct tracecmd_event_list *list);
int tracecmd_write_cmdlines(struct tracecmd_output *handle);
struct tracecmd_option *tracecmd_add_option(struct tracecmd_output *handle, unsigned short id, int size,
                                            const void *data);
int tracecmd_append_cpu_data(struct tracecmd_output *handle, int cpus, char *const *cpu_data_files);
void tracecmd_output_close(struct tracecmd_output *handle);
void tracecmd_set_quiet(struct tracecmd_output *handle, bool set_quiet); /* no "CPUn data recorded at" lines */

enum { OPTION_TRACECLOCK = 4, OPTION_UNAME = 5 };

static void say(char *err, size_t len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

/* One host CPU's ring buffer, read page by page into its .cpuN file (which the
 * trace.dat takes at the end). Read here rather than by libtracecmd's recorder threads:
 * those splice whole pages only, so a CPU with few events would hold its page back for
 * as long as it takes to fill, and a live check could not judge anything before it. */
struct cpu_reader {
    struct tracefs_cpu *tcpu;
    int fd;
    char *file;
};

/* Limits the instance's events to the threads of pid (and what they fork). */
static int filter_pid(struct tracefs_instance *inst, int pid, char *err, size_t errlen) {
    char path[64], buf[32];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *d = opendir(path);
    if (!d) {
        say(err, errlen, "no process %d (%s)", pid, strerror(errno));
        return -1;
    }
    size_t cap = 4096, len = 0;
    char *tids = calloc(1, cap);
    struct dirent *de;
    while (tids && (de = readdir(d))) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9') continue;
        int n = snprintf(buf, sizeof buf, "%s ", de->d_name);
        if (len + (size_t)n + 1 > cap) {
            char *bigger = realloc(tids, cap *= 2);
            if (!bigger) break;
            tids = bigger;
        }
        memcpy(tids + len, buf, (size_t)n + 1);
        len += (size_t)n;
    }
    closedir(d);
    int ok = tids && tracefs_instance_file_write(inst, "set_event_pid", tids) >= 0;
    free(tids);
    if (!ok || tracefs_option_enable(inst, TRACEFS_OPTION_EVENT_FORK) < 0) {
        say(err, errlen, "cannot set the pid filter of the tracefs instance");
        return -1;
    }
    return 0;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The recording ends early on SIGINT or SIGTERM (Ctrl-C, a service stop), as trace-cmd
 * record does: the handler only notes the signal; the loop below then stops, writes the
 * file and removes the instance like at the end of the duration. */
static volatile sig_atomic_t stop_signal;
static void on_stop_signal(int sig) { stop_signal = sig; }

static unsigned long long stat_value(const char *stats, const char *key) {
    const char *p = stats ? strstr(stats, key) : NULL;
    return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/* per_cpu/cpuN/stats of the instance, as trace-cmd stores it in the file ("CPU: N\n"
 * then the kernel's text) for `trace-cmd report --stat`; NULL if unreadable. */
static char *cpu_stats(struct tracefs_instance *inst, int cpu) {
    char file[64];
    snprintf(file, sizeof file, "per_cpu/cpu%d/stats", cpu);
    char *stats = tracefs_instance_file_read(inst, file, NULL);
    if (!stats) return NULL;
    char *out = NULL;
    if (asprintf(&out, "CPU: %d\n%s", cpu, stats) < 0) out = NULL;
    free(stats);
    return out;
}

enum { OPTION_CPUSTAT = 2 };

static int write_dat(const char *output, int cpus, struct cpu_reader *r, struct tracefs_instance *inst, char **stats,
                     char *err, size_t errlen) {
    struct tracecmd_output *out = tracecmd_output_create(output);
    if (!out) {
        say(err, errlen, "cannot create %s: %s", output, strerror(errno));
        return -1;
    }
    tracecmd_set_quiet(out, true);
    int ok = tracecmd_output_set_version(out, 6) == 0 && tracecmd_output_write_headers(out, NULL) == 0;
    struct utsname u;
    char uname_buf[4 * sizeof u.release + 8];
    if (ok && uname(&u) == 0) {
        int n = snprintf(uname_buf, sizeof uname_buf, "%s %s %s %s", u.sysname, u.nodename, u.release, u.version);
        tracecmd_add_option(out, OPTION_UNAME, n + 1, uname_buf);
    }
    /* The instance's trace_clock file as it reads ("local global [mono] …"), as trace-cmd
     * stores it: readers take the bracketed one (the clock's bare name was not found). */
    char *clock = tracefs_instance_file_read(inst, "trace_clock", NULL);
    if (ok && clock) tracecmd_add_option(out, OPTION_TRACECLOCK, (int)strlen(clock) + 1, clock);
    free(clock);
    for (int c = 0; ok && c < cpus; c++)
        if (stats[c]) tracecmd_add_option(out, OPTION_CPUSTAT, (int)strlen(stats[c]) + 1, stats[c]);
    char **files = calloc((size_t)cpus, sizeof *files);
    for (int c = 0; files && c < cpus; c++) files[c] = r[c].file;
    ok = ok && files && tracecmd_write_cmdlines(out) == 0 && tracecmd_append_cpu_data(out, cpus, files) == 0;
    free(files);
    tracecmd_output_close(out);
    if (!ok) say(err, errlen, "writing %s failed", output);
    return ok ? 0 : -1;
}

/* Reads every CPU's buffer until it is empty: each page (a partial one too: the kernel
 * hands out what is committed) goes to its CPU's file, whole, and to the live reader.
 * Returns the pages read, or -1 when a file cannot be written; *stop is set when the
 * live reader asks to end. */
static long read_round(struct cpu_reader *r, int cpus, unsigned char *page, int page_size,
                       const struct irqflow_record_live *live, int *stop, char *err, size_t errlen) {
    long pages = 0;
    for (int c = 0; c < cpus; c++) {
        int n;
        while (r[c].tcpu && (n = tracefs_cpu_read(r[c].tcpu, page, true)) > 0) {
            if (n < page_size) memset(page + n, 0, (size_t)(page_size - n));
            if (write(r[c].fd, page, (size_t)page_size) != (ssize_t)page_size) {
                say(err, errlen, "cannot write %s: %s", r[c].file, strerror(errno));
                return -1;
            }
            pages++;
            if (live && live->page && live->page(live->ctx, c, page, page_size)) *stop = 1;
        }
    }
    return pages;
}

/* How long a quiet round waits before the next: what a live alert may wait for its
 * page, well inside the live check's second (ui/README.md, "Live check"). */
enum { kRoundPause = 50 * 1000 /* µs */ };

static unsigned long long mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* Starts argv stopped on a pipe (released once tracing is on, so its first events are
 * not missed). A second, close-on-exec pipe carries errno back if exec fails. */
static pid_t start_command(char *const *argv, int go[2], int exec_err[2]) {
    if (pipe(go) < 0 || pipe2(exec_err, O_CLOEXEC) < 0) return -1;
    pid_t child = fork();
    if (child != 0) return child;
    char c;
    close(go[1]);
    close(exec_err[0]);
    if (read(go[0], &c, 1) != 1) _exit(127);
    execvp(argv[0], argv);
    int e = errno;
    if (write(exec_err[1], &e, sizeof e) != (ssize_t)sizeof e) _exit(127);
    _exit(127);
}

struct tep_handle *irqflow_record_formats(void) {
    const char *systems[] = {"kvm", NULL};
    return tracefs_local_events_system(NULL, systems);
}

void irqflow_record_free(struct irqflow_record_result *r) {
    free(r->per_cpu);
    r->per_cpu = NULL;
}

int irqflow_record(const struct irqflow_record_opts *o, struct irqflow_record_result *res, char *err, size_t errlen) {
    memset(res, 0, sizeof *res);
    res->command_status = -1;
    if (geteuid() != 0) {
        say(err, errlen, "recording needs root (tracefs and kvm tracepoints are root-only)");
        return IRQFLOW_RECORD_UNAVAILABLE;
    }
    const char *dir = tracefs_tracing_dir();
    if (!dir) {
        say(err, errlen, "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
        return IRQFLOW_RECORD_UNAVAILABLE;
    }
    if (!tracefs_event_file_exists(NULL, "kvm", "kvm_exit", "format") &&
        !tracefs_event_file_exists(NULL, "kvm", "kvm_msr", "format")) {
        say(err, errlen, "no kvm tracepoints in %s/events (is the kvm module loaded?)", dir);
        return IRQFLOW_RECORD_UNAVAILABLE;
    }
    /* The output must be creatable before anything starts: the .cpuN files go next to it. */
    int probe = open(o->output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (probe < 0) {
        say(err, errlen, "cannot create %s: %s", o->output, strerror(errno));
        return IRQFLOW_RECORD_UNAVAILABLE;
    }
    close(probe);
    /* libtracecmd and libtracefs print progress and harmless lookups on stderr; every
     * failure that matters comes back here as a return value. */
    tracecmd_set_loglevel(TEP_LOG_NONE);
    tracefs_set_loglevel(TEP_LOG_NONE);
    /* From here on a stop signal is only noted, so the instance below is always removed. */
    struct sigaction stop_action, old_int, old_term;
    memset(&stop_action, 0, sizeof stop_action);
    stop_action.sa_handler = on_stop_signal;
    sigemptyset(&stop_action.sa_mask);
    stop_signal = 0;
    sigaction(SIGINT, &stop_action, &old_int);
    sigaction(SIGTERM, &stop_action, &old_term);
    char name[64];
    snprintf(name, sizeof name, "irqflow_%d", (int)getpid());
    struct tracefs_instance *inst = tracefs_instance_create(name);
    if (!inst) {
        say(err, errlen, "cannot create tracefs instance %s: %s", name, strerror(errno));
        unlink(o->output);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        return IRQFLOW_RECORD_UNAVAILABLE;
    }
    int status = IRQFLOW_RECORD_FAILED;
    int cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
    struct cpu_reader *r = calloc((size_t)cpus, sizeof *r);
    char **stats = calloc((size_t)cpus, sizeof *stats);
    unsigned char *page = NULL;
    int page_size = 0, live_stop = 0;
    pid_t child = -1;
    int go[2] = {-1, -1}, exec_err[2] = {-1, -1};
    const struct irqflow_record_live *live = o->live;
    if (!r || !stats) {
        say(err, errlen, "out of memory");
        goto out;
    }
    for (int c = 0; c < cpus; c++) r[c].fd = -1;
    tracefs_trace_off(inst);
    tracefs_instance_set_buffer_size(inst, (size_t)(o->buffer_kb > 0 ? o->buffer_kb : 8192), -1);
    /* A live reader merges the CPUs by time while they are written, and knows a CPU has
     * nothing older than the moment it was read dry: that needs one clock on every CPU
     * that user space can read too, which "mono" is (CLOCK_MONOTONIC). */
    if (live && tracefs_instance_file_write(inst, "trace_clock", "mono") < 0) {
        say(err, errlen, "cannot set the trace clock of the tracefs instance to mono");
        status = IRQFLOW_RECORD_UNAVAILABLE;
        goto out;
    }
    if (tracefs_event_enable(inst, "kvm", NULL) < 0) {
        say(err, errlen, "cannot enable kvm events in the tracefs instance");
        status = IRQFLOW_RECORD_UNAVAILABLE;
        goto out;
    }
    if (o->pid > 0 && filter_pid(inst, o->pid, err, errlen) < 0) {
        status = IRQFLOW_RECORD_UNAVAILABLE;
        goto out;
    }
    if (o->argv && o->argv[0]) {
        if ((child = start_command(o->argv, go, exec_err)) < 0) {
            say(err, errlen, "cannot start %s: %s", o->argv[0], strerror(errno));
            status = IRQFLOW_RECORD_NO_COMMAND;
            goto out;
        }
        close(go[0]);
        close(exec_err[1]);
        go[0] = exec_err[1] = -1;
        if (o->pid <= 0) {
            char pidbuf[32];
            snprintf(pidbuf, sizeof pidbuf, "%d", (int)child);
            tracefs_instance_file_write(inst, "set_event_pid", pidbuf);
            tracefs_option_enable(inst, TRACEFS_OPTION_EVENT_FORK);
        }
    }
    for (int c = 0; c < cpus; c++) {
        if (asprintf(&r[c].file, "%s.cpu%d", o->output, c) < 0) {
            r[c].file = NULL;
            say(err, errlen, "out of memory");
            goto out;
        }
        r[c].fd = open(r[c].file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (r[c].fd < 0) {
            say(err, errlen, "cannot create %s for CPU %d's events: %s", r[c].file, c, strerror(errno));
            goto out;
        }
        /* A CPU that is offline has no buffer to read: its file stays empty. */
        r[c].tcpu = tracefs_cpu_open(inst, c, true);
        if (r[c].tcpu && tracefs_cpu_read_size(r[c].tcpu) > page_size) page_size = tracefs_cpu_read_size(r[c].tcpu);
    }
    if (page_size <= 0 || !(page = calloc(1, (size_t)page_size))) {
        say(err, errlen, "cannot open any CPU's ring buffer of the tracefs instance");
        goto out;
    }
    if (live && live->start && live->start(live->ctx, cpus, page_size, (int)child)) live_stop = 1;
    tracefs_trace_on(inst);
    if (child > 0) {
        int e = 0;
        ssize_t n;
        if (write(go[1], "g", 1) != 1) say(err, errlen, "cannot release the command");
        while ((n = read(exec_err[0], &e, sizeof e)) < 0 && errno == EINTR) {}
        if (n == (ssize_t)sizeof e) {  /* exec failed: nothing to record */
            say(err, errlen, "cannot run %s: %s", o->argv[0], strerror(e));
            tracefs_trace_off(inst);
            waitpid(child, NULL, 0);
            child = -1;
            status = IRQFLOW_RECORD_NO_COMMAND;
            goto out;
        }
    }
    double end = o->duration_s > 0 ? now_s() + o->duration_s : 0;
    while (!stop_signal && !live_stop) {
        /* Every CPU read dry each round: what a live reader gets is never older than
         * a round, and an idle CPU holds nothing back. */
        const unsigned long long before = mono_ns();
        const long pages = read_round(r, cpus, page, page_size, live, &live_stop, err, errlen);
        if (pages < 0) goto out;
        if (live && live->drained && live->drained(live->ctx, before)) live_stop = 1;
        if (child > 0) {
            int st;
            pid_t w = waitpid(child, &st, WNOHANG);
            if (w == child) {
                res->command_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
                child = -1;
                if (end == 0) break;
            }
        } else if (end == 0) {
            break;
        }
        if (end && now_s() >= end) break;
        /* A busy round is followed at once by the next one; a quiet one waits a little. */
        if (pages < 64) usleep(kRoundPause);
    }
    res->stopped_by = stop_signal;
    res->stopped_by_live = live_stop;
    tracefs_trace_off(inst);
    /* What was written before tracing stopped: read until every buffer is empty (the
     * live reader gets it too, unless it asked for the end). */
    for (;;) {
        int ignored = 0;
        const long pages = read_round(r, cpus, page, page_size, live_stop ? NULL : live, &ignored, err, errlen);
        if (pages < 0) goto out;
        if (pages == 0) break;
    }
    res->per_cpu = calloc((size_t)cpus, sizeof *res->per_cpu);
    for (int c = 0; c < cpus; c++) {
        stats[c] = cpu_stats(inst, c);
        const unsigned long long over = stat_value(stats[c], "\noverrun:"), dropped = stat_value(stats[c], "dropped events:");
        if (res->per_cpu) res->per_cpu[c] = (struct irqflow_record_cpu){stat_value(stats[c], "read events:"), over, dropped};
        res->overrun += over + dropped;
    }
    for (int c = 0; c < cpus; c++) {
        if (r[c].tcpu) tracefs_cpu_close(r[c].tcpu);
        r[c].tcpu = NULL;
        if (r[c].fd >= 0) close(r[c].fd);
        r[c].fd = -1;
    }
    res->cpus = cpus;
    if (write_dat(o->output, cpus, r, inst, stats, err, errlen) == 0) status = IRQFLOW_RECORD_OK;
out:
    if (go[0] >= 0) close(go[0]);
    if (go[1] >= 0) close(go[1]);
    if (exec_err[0] >= 0) close(exec_err[0]);
    if (exec_err[1] >= 0) close(exec_err[1]);
    if (child > 0 && !(live_stop && o->leave_command)) {  /* the recording ended while the command still runs: stop it */
        int st;
        kill(child, SIGTERM);
        res->command_stopped = 1;
        if (waitpid(child, &st, 0) == child) res->command_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    tracefs_trace_off(inst);
    for (int c = 0; r && c < cpus; c++) {
        if (r[c].tcpu) tracefs_cpu_close(r[c].tcpu);
        if (r[c].fd >= 0) close(r[c].fd);
        if (r[c].file) {
            unlink(r[c].file);
            free(r[c].file);
        }
    }
    free(page);
    for (int c = 0; stats && c < cpus; c++) free(stats[c]);
    free(stats);
    free(r);
    tracefs_event_disable(inst, NULL, NULL);
    tracefs_instance_destroy(inst);
    tracefs_instance_free(inst);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (status != IRQFLOW_RECORD_OK) {
        unlink(o->output);
        irqflow_record_free(res);
    }
    return status;
}
