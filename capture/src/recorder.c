/* Live recorder: libtracefs sets up a private instance; libtracecmd's (exported, but
 * privately declared) recorder and output writer produce a trace.dat that
 * `trace-cmd report` and KernelShark open. Recipe and pitfalls: shared notes stack.md. */
#define _GNU_SOURCE
#include "irqflow/capture/recorder.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
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
struct tracecmd_recorder;
struct tracecmd_output;
struct tracecmd_option;
struct tracecmd_event_list;
struct tracecmd_recorder *tracecmd_create_buffer_recorder(const char *file, int cpu, unsigned flags,
                                                          struct tracefs_instance *instance);
int tracecmd_start_recording(struct tracecmd_recorder *recorder, unsigned long sleep);
int tracecmd_stop_recording(struct tracecmd_recorder *recorder);
void tracecmd_free_recorder(struct tracecmd_recorder *recorder);
struct tracecmd_output *tracecmd_output_create(const char *output_file);
int tracecmd_output_set_version(struct tracecmd_output *handle, int file_version);
int tracecmd_output_write_headers(struct tracecmd_output *handle, struct tracecmd_event_list *list);
int tracecmd_write_cmdlines(struct tracecmd_output *handle);
struct tracecmd_option *tracecmd_add_option(struct tracecmd_output *handle, unsigned short id, int size,
                                            const void *data);
int tracecmd_append_cpu_data(struct tracecmd_output *handle, int cpus, char *const *cpu_data_files);
void tracecmd_output_close(struct tracecmd_output *handle);

enum { OPTION_TRACECLOCK = 4, OPTION_UNAME = 5 };

static void say(char *err, size_t len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

struct cpu_worker {
    pthread_t thread;
    struct tracecmd_recorder *rec;
    char *file;
    int started;
};

static void *record_cpu(void *arg) {
    struct cpu_worker *w = arg;
    tracecmd_start_recording(w->rec, 1000);
    return NULL;
}

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

static unsigned long long read_overrun(struct tracefs_instance *inst, int cpu) {
    char file[64];
    snprintf(file, sizeof file, "per_cpu/cpu%d/stats", cpu);
    char *stats = tracefs_instance_file_read(inst, file, NULL);
    unsigned long long n = 0;
    const char *p = stats ? strstr(stats, "overrun:") : NULL;
    if (p) n = strtoull(p + 8, NULL, 10);
    free(stats);
    return n;
}

static int write_dat(const char *output, int cpus, struct cpu_worker *w, struct tracefs_instance *inst,
                     char *err, size_t errlen) {
    struct tracecmd_output *out = tracecmd_output_create(output);
    if (!out) {
        say(err, errlen, "cannot create %s: %s", output, strerror(errno));
        return -1;
    }
    int ok = tracecmd_output_set_version(out, 6) == 0 && tracecmd_output_write_headers(out, NULL) == 0;
    struct utsname u;
    char uname_buf[4 * sizeof u.release + 8];
    if (ok && uname(&u) == 0) {
        int n = snprintf(uname_buf, sizeof uname_buf, "%s %s %s %s", u.sysname, u.nodename, u.release, u.version);
        tracecmd_add_option(out, OPTION_UNAME, n + 1, uname_buf);
    }
    char *clock = tracefs_get_clock(inst);
    if (ok && clock) tracecmd_add_option(out, OPTION_TRACECLOCK, (int)strlen(clock) + 1, clock);
    free(clock);
    char **files = calloc((size_t)cpus, sizeof *files);
    for (int c = 0; files && c < cpus; c++) files[c] = w[c].file;
    ok = ok && files && tracecmd_write_cmdlines(out) == 0 && tracecmd_append_cpu_data(out, cpus, files) == 0;
    free(files);
    tracecmd_output_close(out);
    if (!ok) say(err, errlen, "writing %s failed", output);
    return ok ? 0 : -1;
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
    char name[64];
    snprintf(name, sizeof name, "irqflow_%d", (int)getpid());
    struct tracefs_instance *inst = tracefs_instance_create(name);
    if (!inst) {
        say(err, errlen, "cannot create tracefs instance %s: %s", name, strerror(errno));
        return IRQFLOW_RECORD_UNAVAILABLE;
    }
    int status = IRQFLOW_RECORD_FAILED;
    int cpus = (int)sysconf(_SC_NPROCESSORS_CONF);
    struct cpu_worker *w = calloc((size_t)cpus, sizeof *w);
    pid_t child = -1;
    int go[2] = {-1, -1};
    tracefs_trace_off(inst);
    tracefs_instance_set_buffer_size(inst, (size_t)(o->buffer_kb > 0 ? o->buffer_kb : 8192), -1);
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
        /* Start the command stopped on a pipe, so its first events are not missed. */
        if (pipe(go) < 0 || (child = fork()) < 0) {
            say(err, errlen, "cannot start %s: %s", o->argv[0], strerror(errno));
            goto out;
        }
        if (child == 0) {
            char c;
            close(go[1]);
            if (read(go[0], &c, 1) != 1) _exit(127);
            execvp(o->argv[0], o->argv);
            fprintf(stderr, "irqflow: cannot run %s: %s\n", o->argv[0], strerror(errno));
            _exit(127);
        }
        close(go[0]);
        go[0] = -1;
        if (o->pid <= 0) {
            char pidbuf[32];
            snprintf(pidbuf, sizeof pidbuf, "%d", (int)child);
            tracefs_instance_file_write(inst, "set_event_pid", pidbuf);
            tracefs_option_enable(inst, TRACEFS_OPTION_EVENT_FORK);
        }
    }
    for (int c = 0; c < cpus; c++) {
        if (asprintf(&w[c].file, "%s.cpu%d", o->output, c) < 0) goto out;
        w[c].rec = tracecmd_create_buffer_recorder(w[c].file, c, 0, inst);
        if (!w[c].rec) {
            say(err, errlen, "cannot create the recorder for CPU %d", c);
            goto out;
        }
    }
    for (int c = 0; c < cpus; c++) w[c].started = pthread_create(&w[c].thread, NULL, record_cpu, &w[c]) == 0;
    tracefs_trace_on(inst);
    if (child > 0 && write(go[1], "g", 1) != 1) say(err, errlen, "cannot release the command");
    double end = o->duration_s > 0 ? now_s() + o->duration_s : 0;
    for (;;) {
        if (child > 0) {
            int st;
            pid_t r = waitpid(child, &st, WNOHANG);
            if (r == child) {
                res->command_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
                child = -1;
                if (end == 0) break;
            }
        } else if (end == 0) {
            break;
        }
        if (end && now_s() >= end) break;
        usleep(20000);
    }
    tracefs_trace_off(inst);
    for (int c = 0; c < cpus; c++) {
        if (w[c].rec) tracecmd_stop_recording(w[c].rec);
        if (w[c].started) pthread_join(w[c].thread, NULL);
        res->overrun += read_overrun(inst, c);
    }
    for (int c = 0; c < cpus; c++) {
        tracecmd_free_recorder(w[c].rec);
        w[c].rec = NULL;
    }
    res->cpus = cpus;
    if (write_dat(o->output, cpus, w, inst, err, errlen) == 0) status = IRQFLOW_RECORD_OK;
out:
    if (go[0] >= 0) close(go[0]);
    if (go[1] >= 0) close(go[1]);
    if (child > 0) {  /* duration over while the command still runs: stop it */
        int st;
        kill(child, SIGTERM);
        if (waitpid(child, &st, 0) == child) res->command_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
    for (int c = 0; w && c < cpus; c++) {
        if (w[c].rec) tracecmd_free_recorder(w[c].rec);
        if (w[c].file) {
            unlink(w[c].file);
            free(w[c].file);
        }
    }
    free(w);
    tracefs_event_disable(inst, NULL, NULL);
    tracefs_instance_destroy(inst);
    tracefs_instance_free(inst);
    return status;
}
