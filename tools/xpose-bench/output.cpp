// xpose-bench's output and option checks shared by every subcommand (cli.hpp).
//
// Output files are never opened through a symbolic link and never left half-written:
// the bytes go to a file created (O_CREAT | O_EXCL | O_NOFOLLOW) in a private directory
// made beside the target (mkdtemp, mode 0700), every write and the close are checked,
// and the file is renamed over the target at the end. A rename replaces a link planted
// at the target, never the file it points to; a pre-existing target is replaced only by
// a complete output. Devices and FIFOs (/dev/null, a pipe) are written in place.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.hpp"
#include "cli.hpp"

namespace xbench {

std::string one_line(const std::string& s) {
  std::string o;
  for (unsigned char ch : s) {
    if (ch == '\n') o += "\\n";
    else if (ch == '\r') o += "\\r";
    else if (ch == '\t') o += "\\t";
    else if (ch < 0x20 || ch == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", ch);
      o += b;
    } else {
      o += static_cast<char>(ch);
    }
  }
  return o;
}

// ---- numbers --------------------------------------------------------------

CLI::Validator whole_number(long long lo, long long hi) {
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& s) -> std::string {
        const bool neg = !s.empty() && s[0] == '-';
        const std::string digits = neg ? s.substr(1) : s;
        if (digits.empty() || digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos)
          return "'" + s + "' is not a whole number in " + range;
        const long long v = neg ? -std::stoll(digits) : std::stoll(digits);
        if (v < lo || v > hi) return s + " is out of range " + range;
        return "";
      },
      "");
}

CLI::Validator finite_real(double lo, double hi) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "[%g, %g]", lo, hi);
  const std::string range = buf;
  return CLI::Validator(
      [lo, hi, range](std::string& s) -> std::string {
        errno = 0;
        char* end = nullptr;
        const double v = s.empty() || std::isspace(static_cast<unsigned char>(s[0])) ? NAN : std::strtod(s.c_str(), &end);
        if (s.empty() || end == nullptr || *end != '\0' || !std::isfinite(v) || errno == ERANGE ||
            s.find_first_not_of("0123456789.-+eE") != std::string::npos)  // no hex, no "inf"
          return "'" + s + "' is not a finite number in " + range;
        if (v < lo || v > hi) return s + " is out of range " + range;
        return "";
      },
      "");
}

// ---- common options -------------------------------------------------------

void add_common_options(CLI::App* app, common_opts& c) {
  app->add_option("--format", c.format, "table | csv | json | md");
  app->add_option("--out", c.out_file, "also write the output to FILE (replaced at the end, never through a link)");
  app->add_flag("--quiet", c.quiet, "no progress line on stderr (shown only when stderr is a terminal)");
}

bool given(const CLI::App& root, const CLI::App* sub, const std::string& name) {
  if (const CLI::Option* o = root.get_option_no_throw(name); o && o->count() > 0) return true;
  if (sub)
    if (const CLI::Option* o = sub->get_option_no_throw(name); o && o->count() > 0) return true;
  return false;
}

void check_common(const common_opts& c, const CLI::App& root, const CLI::App* sub) {
  if (c.format != "table" && c.format != "csv" && c.format != "json" && c.format != "md")
    usage_error("unknown --format '" + c.format + "' (table, csv, json or md)");
  if (given(root, sub, "--out")) check_output_path(c.out_file, "--out");
  set_out_file(c.out_file);
  set_quiet(c.quiet);
}

// ---- files ----------------------------------------------------------------

namespace {

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

bool write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t k = ::write(fd, data.data() + done, data.size() - done);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      if (k == 0) errno = EIO;
      return false;
    }
    done += static_cast<std::size_t>(k);
  }
  return true;
}

std::string& out_path() {
  static std::string p;
  return p;
}
std::string& out_text() {
  static std::string t;
  return t;
}

}  // namespace

void check_output_path(const std::string& path, const std::string& what) {
  if (path.empty()) usage_error(what + " needs a file name (got an empty one)");
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode))
      usage_error(what + " '" + path + "' is a symbolic link: xpose-bench does not write through links (give its target)");
    if (S_ISDIR(st.st_mode)) usage_error(what + " '" + path + "' is a directory");
    if (!S_ISREG(st.st_mode)) {  // a device or a FIFO: written in place
      if (::access(path.c_str(), W_OK) != 0) usage_error(what + " '" + path + "' is not writable: " + std::strerror(errno));
      return;
    }
    if (::access(path.c_str(), W_OK) != 0) usage_error(what + " '" + path + "' is not writable: " + std::strerror(errno));
  } else if (errno != ENOENT) {
    usage_error(what + " '" + path + "': " + std::strerror(errno));
  }
  const std::string dir = dir_of(path);
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    usage_error(what + " '" + path + "': cannot create a file in '" + dir + "': " + std::strerror(errno));
}

std::string private_dir_beside(const std::string& path, std::string* why) {
  std::string t = dir_of(path) + "/.xpose-bench-XXXXXX";
  if (::mkdtemp(t.data()) == nullptr) {
    *why = "cannot create a temporary directory in '" + dir_of(path) + "': " + std::strerror(errno);
    return "";
  }
  return t;
}

bool write_new_file(const std::string& path, const std::string& data, std::string* why) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) {
    *why = "cannot create '" + path + "': " + std::strerror(errno);
    return false;
  }
  const bool ok = write_all(fd, data);
  const int e = errno;
  if (::close(fd) != 0 || !ok) {
    *why = std::string("writing '") + path + "' failed: " + std::strerror(ok ? errno : e);
    ::unlink(path.c_str());
    return false;
  }
  return true;
}

bool write_file_atomic(const std::string& path, const std::string& data, std::string* why) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode) && !S_ISDIR(st.st_mode)) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);  // a device or a FIFO
    if (fd < 0) {
      *why = std::string("cannot open: ") + std::strerror(errno);
      return false;
    }
    const bool ok = write_all(fd, data);
    const int e = errno;
    if (::close(fd) != 0 || !ok) {
      *why = std::strerror(ok ? errno : e);
      return false;
    }
    return true;
  }
  const std::string dir = private_dir_beside(path, why);
  if (dir.empty()) return false;
  const std::string tmp = dir + "/out";
  bool ok = write_new_file(tmp, data, why);
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) {
    *why = std::string("cannot rename the finished file into place: ") + std::strerror(errno);
    ::unlink(tmp.c_str());
    ok = false;
  }
  ::rmdir(dir.c_str());
  return ok;
}

// ---- standard output and --out -------------------------------------------

void set_out_file(const std::string& path) { out_path() = path; }

void emit(const std::string& text) {
  std::cout << text << std::flush;
  if (!out_path().empty()) out_text() += text;
}

int finish(int rc) {
  int err = 0;
  std::cout.flush();
  if (!std::cout) err = errno ? errno : EIO;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) err = errno ? errno : EIO;
  if (::close(1) != 0 && errno != EBADF && err == 0) err = errno;
  if (err != 0) {
    std::fprintf(stderr, "xpose-bench: error: writing standard output failed: %s\n", std::strerror(err));
    rc = std::max(rc, 1);
  }
  if (!out_path().empty()) {
    std::string why;
    if (!write_file_atomic(out_path(), out_text(), &why)) {
      std::fprintf(stderr, "xpose-bench: error: writing --out file '%s' failed: %s\n", one_line(out_path()).c_str(),
                   one_line(why).c_str());
      rc = std::max(rc, 1);
    }
  }
  return rc;
}

}  // namespace xbench
