import { type Dirent, lstatSync, readdirSync, type Stats } from "node:fs";
import { join } from "node:path";
import { type Boundary, childPath, dirPathFor, isHidden, verifyDescriptor } from "./boundary.ts";
import type { Opened } from "./open-inside.ts";

// The entries of a directory the file tools opened, sorted by name, for list and search.
// With /proc the names are read through the verified descriptor, so a swap of the directory
// for a symlink cannot show another directory's names. Without /proc (macOS) they are read by
// path and the descriptor is checked again afterwards: a swap away and back between the two
// checks can still show another directory's names and sizes (file contents are read only
// through checked descriptors), a gap Node leaves open for lack of fdopendir/openat.

export function readEntries(boundary: Boundary, dir: Opened): Dirent[] {
  const entries = readdirSync(dirPathFor(boundary, dir.fd, dir.path), { withFileTypes: true });
  verifyDescriptor(boundary, dir.fd, dir.path, dir.shown);
  return entries
    .filter((entry) => !isHidden(boundary, join(dir.path, entry.name)))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** lstat of an entry of `dir`: its size and type, without opening it or following a symlink. */
export function lstatEntry(boundary: Boundary, dir: Opened, name: string): Stats {
  return lstatSync(childPath(boundary, dir.fd, dir.path, name));
}
