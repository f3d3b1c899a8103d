// xpose-bench's command line: the options every subcommand shares, numeric options
// that refuse what is not a number in range, and the output every subcommand writes
// through (standard output and --out, every write checked).
//
// Adding a subcommand: write `command add_NAME_command(CLI::App& root, common_opts& c)`
// that calls root.add_subcommand, add_common_options on it, registers its own options
// (numbers through add_count / add_real) and returns what runs it; main.cpp lists it.
// Adding options to an existing subcommand from another file: declare a function taking
// the subcommand's CLI::App* and the struct its options fill, and call it from that
// subcommand's add_NAME_command.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdio>
#include <functional>
#include <string>

namespace xbench {

/// --format, --out and --quiet: every subcommand takes them.
struct common_opts {
  std::string format = "table";
  std::string out_file;
  bool quiet = false;
  std::string command;  // the whole command line, for the report's evidence
};

/// Adds --format, --out and --quiet to `app`, bound to `c`.
void add_common_options(CLI::App* app, common_opts& c);

/// Exit 2 (one line) unless --format is known and --out names a file that can be
/// written: checked before anything runs.
void check_common(const common_opts& c, const CLI::App& root, const CLI::App* sub);

/// A whole number in [lo, hi]: empty, NaN, inf, fractions, signs where lo >= 0 and
/// out-of-range values are refused at parse time (exit 2, one line).
CLI::Validator whole_number(long long lo, long long hi);

/// A finite real in [lo, hi]: empty, NaN and inf refused.
CLI::Validator finite_real(double lo, double hi);

template <class Int>
CLI::Option* add_count(CLI::App* app, const std::string& name, Int& v, long long lo, long long hi,
                       const std::string& help) {
  return app->add_option(name, v, help)
      ->check(whole_number(lo, hi))
      ->type_name("INT in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

inline CLI::Option* add_real(CLI::App* app, const std::string& name, double& v, double lo, double hi,
                             const std::string& help) {
  char range[96];
  std::snprintf(range, sizeof range, "NUMBER in [%g, %g]", lo, hi);
  return app->add_option(name, v, help)->check(finite_real(lo, hi))->type_name(range);
}

/// One subcommand: its parser, and what runs it once the command line is parsed.
struct command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

/// True when option `name` was given on `root` or on `sub` (both may bind one variable).
bool given(const CLI::App& root, const CLI::App* sub, const std::string& name);

// ---- output ---------------------------------------------------------------

/// Prints `text` on standard output now; with --out, keeps it for the file, which
/// finish() writes at the end, all at once.
void emit(const std::string& text);

/// Sets the --out file (empty: none).
void set_out_file(const std::string& path);

/// Writes the --out file (a private temporary beside it, created without following
/// links, renamed over it), flushes and closes standard output; returns `rc`, or 1
/// after one line on stderr when any write failed.
int finish(int rc);

/// Writes `data` to `path` as finish() does; false and `*why` on failure.
bool write_file_atomic(const std::string& path, const std::string& data, std::string* why);

/// Exit 2 (one line) when `path` cannot be an output file: empty, a directory, a
/// symbolic link (never followed), or in a directory where no file can be created.
void check_output_path(const std::string& path, const std::string& what);

/// A new private directory (mkdtemp, 0700) in the directory of `path`; "" and `*why`
/// when it cannot be made.
std::string private_dir_beside(const std::string& path, std::string* why);

/// Creates `path` (O_EXCL | O_NOFOLLOW: never an existing file or a link) holding `data`,
/// every write and the close checked; false and `*why` on failure (nothing left).
bool write_new_file(const std::string& path, const std::string& data, std::string* why);

/// `s` on one line: newlines, other control characters and DEL as \n, \xNN.
std::string one_line(const std::string& s);

}  // namespace xbench
