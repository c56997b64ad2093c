/* Live recording of kvm:* tracepoints into a trace.dat (v6), through a private
 * tracefs instance so the top-level buffer other tools may use is never touched. */
#ifndef IRQFLOW_CAPTURE_RECORDER_H
#define IRQFLOW_CAPTURE_RECORDER_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A live reader of the recording (record --check). Called on the recording thread, in
 * this order: start once before tracing begins (the command's pid, or -1); page for
 * each ring-buffer page as it is read (page_size bytes; a partial page too — the kernel
 * hands out what is committed, so a CPU with few events is read every round); drained
 * after each round that read every CPU dry, with CLOCK_MONOTONIC (the instance's clock,
 * "mono", when a live reader is given) taken before the round: no CPU can later yield
 * an event older than that. A non-zero return from any of them ends the recording as a
 * stop signal would (result->stopped_by_live). */
struct irqflow_record_live {
    void *ctx;
    int (*start)(void *ctx, int cpus, int page_size, int command_pid);
    int (*page)(void *ctx, int cpu, const void *page, int page_size);
    int (*drained)(void *ctx, unsigned long long before_ns);
};

struct irqflow_record_opts {
    const char *output;      /* trace.dat to write */
    double duration_s;       /* stop after this long (<= 0: when the command exits) */
    int pid;                 /* record only this process's threads (0: all) */
    char *const *argv;       /* command to run and trace (NULL: none) */
    int buffer_kb;           /* per-CPU ring buffer size (0: 8192) */
    const struct irqflow_record_live *live; /* NULL: record only */
    int leave_command;       /* when the live reader ended the recording, leave the command
                                running (or stopped) instead of sending it SIGTERM */
};

enum irqflow_record_status {
    IRQFLOW_RECORD_OK = 0,
    IRQFLOW_RECORD_FAILED = 1,      /* recording started but something broke */
    IRQFLOW_RECORD_UNAVAILABLE = 2, /* not root, no tracefs, no kvm events, bad pid, output not creatable */
    IRQFLOW_RECORD_NO_COMMAND = 3,  /* argv could not be started (exec failed); nothing written */
};

/* One host CPU's ring buffer at the end, from tracefs per_cpu/cpuN/stats. */
struct irqflow_record_cpu {
    unsigned long long recorded;  /* "read events": taken out of the buffer into the file */
    unsigned long long overrun;   /* overwritten before they were read: lost */
    unsigned long long dropped;   /* "dropped events": not even written (buffer full): lost */
};

struct irqflow_record_result {
    unsigned long long overrun;   /* events lost (overrun + dropped, sum over CPUs) */
    int cpus;
    int command_status;           /* exit status of argv, or -1 */
    int command_stopped;          /* argv still ran when the recording ended: sent SIGTERM */
    int stopped_by;               /* SIGINT / SIGTERM that ended the recording early, or 0 */
    int stopped_by_live;          /* the live reader ended it */
    struct irqflow_record_cpu *per_cpu; /* cpus entries (NULL on failure); irqflow_record_free */
};

/* Records; on failure writes a one-line reason (naming the path and errno) into err and
 * leaves no output file, no .cpuN files and no tracefs instance behind. SIGINT and
 * SIGTERM during the recording stop it: the file is written as for the end of the
 * duration, and result->stopped_by says so. */
int irqflow_record(const struct irqflow_record_opts *opts, struct irqflow_record_result *result,
                   char *err, size_t errlen);
void irqflow_record_free(struct irqflow_record_result *result);

/* The kvm event formats (and the ring-buffer page header) of this host's tracefs, what
 * a live reader decodes the pages with; NULL when unreadable. Free with tep_free. (Here
 * because tracefs.h is a C header only.) */
struct tep_handle;
struct tep_handle *irqflow_record_formats(void);

#ifdef __cplusplus
}
#endif
#endif
