/**
 * The file a path really names, for the guard: links followed (a committed
 * symlink to macros/ is macros/), and the spellings other file systems take
 * for the same file folded together before a path is compared with a
 * protected pattern.
 *
 * Folding is always on, whatever file system the guard runs on: a branch
 * written on Linux is checked out on a developer's Mac or Windows machine,
 * where `Macros/x.sql`, `macros./x.sql` and `macros/x.sql` are one file, so
 * a spelling that is another file only here still reaches the protected one
 * there. A false refusal costs a question to a human; a miss costs a
 * protected file changed. `slp gate` compares git's exact paths and stays
 * the lock.
 */
import { lstatSync, readlinkSync } from "node:fs";
import { dirname, isAbsolute, resolve, sep } from "node:path";

/** As Linux's ELOOP: more links than this in one path is a loop. */
const MAX_LINKS = 40;

/**
 * `absolute` with every symbolic link in it followed, as the kernel would on
 * a write: the existing part resolved link by link (a dangling link included:
 * writing it creates its target), the part that does not exist yet appended
 * as given. A loop stops following and keeps the path reached.
 */
export function resolveLinks(absolute: string): string {
  let budget = MAX_LINKS;
  let pending = absolute.split(sep).filter((part) => part !== "");
  let current: string = sep;
  while (pending.length > 0) {
    const part = pending.shift() as string;
    const next = resolve(current, part);
    let isLink = false;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch {
      // The rest does not exist yet: it is created as written.
      return resolve(next, ...pending);
    }
    if (!isLink) {
      current = next;
      continue;
    }
    if (--budget < 0) return resolve(next, ...pending);
    const target = readlinkSync(next);
    const linked = isAbsolute(target) ? target : resolve(dirname(next), target);
    pending = [...linked.split(sep).filter((p) => p !== ""), ...pending];
    current = sep;
  }
  return current;
}

/**
 * Characters HFS+ ignores in a name (git's CVE-2014-9390 list): `.g\u200cit`
 * is `.git` on a Mac.
 */
const IGNORED_ON_MACOS = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/**
 * The form two paths are compared in: `/`-separated (a backslash is a
 * separator on Windows), Unicode NFC (macOS stores NFD), characters HFS+
 * ignores removed, each component's NTFS stream suffix (`AGENTS.md::$DATA`)
 * and trailing dots and spaces removed (Windows drops them), lower case
 * (macOS and Windows fold case).
 */
export function matchKey(path: string): string {
  return path
    .normalize("NFC")
    .replace(IGNORED_ON_MACOS, "")
    .split(/[\\/]/)
    .map((part) => (part === "." || part === ".." ? part : part.replace(/:.*$/, "").replace(/[. ]+$/, "")))
    .join("/")
    .toLowerCase();
}

/**
 * True when `component` may be Windows's 8.3 short name of `name`
 * (`GITHUB~1` for `.github`, `DBT_PR~1.YML` for `dbt_project.yml`): the
 * first characters of the name without dots and spaces, `~` and a number,
 * and the first three of its extension. Both in matchKey's form.
 */
export function mayBeShortName(component: string, name: string): boolean {
  const short = /^([^~.]{1,6})~\d+(?:\.([^.]{1,3}))?$/.exec(component);
  if (!short) return false;
  const dot = name.lastIndexOf(".");
  const stem = (dot > 0 ? name.slice(0, dot) : name).replace(/[. ]/g, "");
  const extension = dot > 0 ? name.slice(dot + 1, dot + 4) : "";
  return stem.startsWith(short[1] as string) && (short[2] ?? "") === extension;
}
