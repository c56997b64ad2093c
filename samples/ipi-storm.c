/* Part of the guest workload (samples/guest-workload.sh): makes multi-destination
 * IPIs. Threads pinned to every CPU keep this process's address space live on all of
 * them; the main thread then changes mappings, so each change must shoot down the
 * TLBs of the other CPUs with one IPI to several destinations (a PV IPI hypercall
 * when the guest has KVM_FEATURE_PV_SEND_IPI, one ICR write per CPU otherwise).
 * Static build: gcc -O2 -static -pthread -o ipi-storm ipi-storm.c */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static atomic_int stop;
static volatile char *shared_page;

static void *spin(void *arg) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)(long)arg, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    while (!atomic_load(&stop)) {
        (void)shared_page[0];   /* keep this mm active on this CPU */
        usleep(200);            /* and let the CPU idle a little, for timer traffic */
    }
    return NULL;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 200;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    pthread_t th[64];
    shared_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    shared_page[0] = 1;
    for (long c = 1; c < ncpu && c < 64; c++) pthread_create(&th[c], NULL, spin, (void *)c);
    usleep(20000);
    for (int i = 0; i < rounds; i++) {
        char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        p[0] = 1;
        mprotect(p, 8192, PROT_READ);   /* flush on every CPU running this mm */
        munmap(p, 8192);
    }
    atomic_store(&stop, 1);
    for (long c = 1; c < ncpu && c < 64; c++) pthread_join(th[c], NULL);
    printf("ipi-storm: %d rounds on %ld cpus\n", rounds, ncpu);
    return 0;
}
