/* tests/fuzz/replay.h: the part of the fuzz targets' own drivers (built
   with FUZZ_MAIN, without libFuzzer) that is the same for each target:
   replaying files and directories of inputs, each file in a child process,
   and the fixed-seed generator and FUZZ_DUMP of their random drivers.

   The file that includes it defines, before the include,
       static long replay_input(const char *path, const unsigned char *buf, size_t len);
   which runs one input read from path and returns how many steps it ran,
   and then calls replay_main from its main. */
#ifndef ECS_TESTS_FUZZ_REPLAY_H
#define ECS_TESTS_FUZZ_REPLAY_H
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long replayed_files, replayed_steps, failed_files;

static long replay_file(const char *path) {
    long steps, len;
    FILE *f = fopen(path, "rb");
    unsigned char *buf;
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = (unsigned char *)malloc((size_t)len + 1);
    if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    steps = replay_input(path, buf, (size_t)len);
    free(buf);
    return steps;
}

/* Each file in a child process, so one crash does not hide the others. */
static void replay_file_forked(const char *path) {
    int status = 0, fd[2];
    pid_t pid;
    long steps = 0;
    fflush(stdout);
    fflush(stderr);
    if (pipe(fd) != 0 || (pid = fork()) < 0) { /* no fork: in this process */
        replayed_steps += replay_file(path);
        replayed_files++;
        return;
    }
    if (pid == 0) {
        close(fd[0]);
        steps = replay_file(path);
        if (write(fd[1], &steps, sizeof steps) != (ssize_t)sizeof steps) _exit(3);
        _exit(0);
    }
    close(fd[1]);
    if (read(fd[0], &steps, sizeof steps) != (ssize_t)sizeof steps) steps = 0;
    close(fd[0]);
    waitpid(pid, &status, 0);
    replayed_files++;
    replayed_steps += steps;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        failed_files++;
        printf("FAIL  %s\n", path);
    }
}

/* A file, or every file below a directory (names starting with '.' left out). */
static void replay_path(const char *path) {
    struct stat st;
    DIR *d;
    struct dirent *ent;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "no such file or directory: %s\n", path);
        exit(2);
    }
    if (!S_ISDIR(st.st_mode)) {
        replay_file_forked(path);
        return;
    }
    if (!(d = opendir(path))) exit(2);
    while ((ent = readdir(d)) != NULL) {
        char sub[4096];
        if (ent->d_name[0] == '.') continue;
        snprintf(sub, sizeof sub, "%s/%s", path, ent->d_name);
        replay_path(sub);
    }
    closedir(d);
}

/* The random drivers' generator (xorshift*): the same inputs for a seed on
   every machine. */
static unsigned long long replay_rng = 0x9e3779b97f4a7c15ull;
static unsigned replay_rnd(unsigned n) {
    replay_rng ^= replay_rng >> 12;
    replay_rng ^= replay_rng << 25;
    replay_rng ^= replay_rng >> 27;
    return (unsigned)((replay_rng * 2685821657736338717ull) >> 33) % n;
}

/* FUZZ_DUMP=file: the input about to run is written there, so that it is
   left behind if it crashes. */
static void replay_dump(const unsigned char *buf, size_t len) {
    const char *dump = getenv("FUZZ_DUMP");
    FILE *f;
    if (!dump) return;
    if (!(f = fopen(dump, "wb")) || fwrite(buf, 1, len, f) != len) exit(2);
    fclose(f);
}

/* main: `--random [STEPS [SEED]]` runs random_driver(STEPS (default
   steps), SEED (default 1)); otherwise each argument, a file or a
   directory, is replayed and "RESULT passed failed" printed, where what
   says how each step was checked. */
static int replay_main(int argc, char **argv, int (*random_driver)(long, unsigned long long), long steps,
                       const char *what) {
    int k;
    if (argc >= 2 && strcmp(argv[1], "--random") == 0)
        return random_driver(argc > 2 ? atol(argv[2]) : steps, argc > 3 ? strtoull(argv[3], NULL, 0) : 1);
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...   (replay inputs)\n"
                        "       %s --random [STEPS [SEED]]   (fixed-seed random driver)\n", argv[0], argv[0]);
        return 2;
    }
    for (k = 1; k < argc; k++) replay_path(argv[k]);
    printf("replayed %ld inputs, %ld steps, %s; %ld failed\n", replayed_files, replayed_steps, what, failed_files);
    printf("RESULT %ld %ld\n", replayed_files - failed_files, failed_files);
    return failed_files != 0;
}
#endif
