#define _GNU_SOURCE
#include "utensil_support.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int utensil_spawn_hook(const char *path, char *const argv[], char *const envp[], int input_fd, int output_fd, int *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0) return rc;
    rc = posix_spawnattr_init(&attributes);
    if (rc != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return rc;
    }
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    pid_t child = 0;
    if ((rc = posix_spawn_file_actions_adddup2(&actions, input_fd, 0)) == 0
        && (rc = posix_spawn_file_actions_adddup2(&actions, output_fd, 1)) == 0
        && (rc = posix_spawn_file_actions_adddup2(&actions, output_fd, 2)) == 0
        && (rc = posix_spawn_file_actions_addclosefrom_np(&actions, 3)) == 0
        && (rc = posix_spawnattr_setsigmask(&attributes, &none)) == 0
        && (rc = posix_spawnattr_setsigdefault(&attributes, &all)) == 0
        && (rc = posix_spawnattr_setflags(
                &attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)) == 0) {
        rc = posix_spawn(&child, path, &actions, &attributes, argv, envp);
    }
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    if (rc == 0) *pid = (int)child;
    return rc;
}

int utensil_memfd(const char *name) {
    return memfd_create(name, MFD_CLOEXEC);
}

int utensil_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int utensil_pidfd_open(int pid) {
    return (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
}

int utensil_pidfd_send_signal(int pidfd, int signal) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0);
}

int utensil_become_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}
