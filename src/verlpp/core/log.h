// Rank-aware output. A run of N ranks (verlpp launch, torchrun, srun) prints progress, metrics and
// notes once, from rank 0; errors and warnings are printed by every rank that has them, prefixed
// with the rank so that the user can tell which one failed. A process that never calls
// set_log_rank is rank 0 of 1 and prints as before ("verlpp: ...").
#pragma once

#include <string>

namespace verlpp {

// Sets this process's rank and world size (once, when the launch environment is read).
void set_log_rank(int rank, int world_size);

// True on rank 0: the rank that prints notes, progress and metrics and writes shared files.
bool is_main_rank();

// "verlpp" on a world of one, "verlpp [rank 1/4]" otherwise.
std::string log_prefix();

// "<prefix>: <line>" on stderr in one write (so that ranks sharing a terminal or pipe do not
// interleave within a line), every rank.
void log_line(const std::string& line);

// "<prefix>: <message>" on stderr, rank 0 only.
void log_note(const std::string& message);

// "<prefix>: warning: <message>" on stderr, every rank.
void log_warning(const std::string& message);

}  // namespace verlpp
