//! A directory private to the user: owned by them, mode 0700.

use std::fmt;
use std::path::{Path, PathBuf};

/// Why the cache directory cannot be used.
#[derive(Debug)]
pub enum StoreError {
    /// No directory was given and neither `XDG_CACHE_HOME` nor `HOME` is set.
    NoHome,
    /// The directory could not be created or read.
    Io(PathBuf, std::io::Error),
    /// Another user owns the directory: its contents could be anyone's code.
    NotOwned(PathBuf),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::NoHome => write!(
                f,
                "no cache directory: set {} (or XDG_CACHE_HOME or HOME), or pass one",
                super::CACHE_ENV
            ),
            StoreError::Io(dir, e) => write!(f, "cache directory {}: {e}", dir.display()),
            StoreError::NotOwned(dir) => write!(
                f,
                "cache directory {} belongs to another user: refusing to use it (its files \
                 would become part of your programs); choose another with {}",
                dir.display(),
                super::CACHE_ENV
            ),
        }
    }
}

impl std::error::Error for StoreError {}

/// Creates `dir` (and its parents) if needed and makes it private: mode
/// 0700, owned by the user running this. A directory of another user is
/// refused; one of the user's open to others is closed (chmod 0700).
pub fn private_dir(dir: &Path) -> Result<(), StoreError> {
    let io = |e| StoreError::Io(dir.to_path_buf(), e);
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    match create_private(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(io(e)),
    }
    secure(dir)
}

#[cfg(unix)]
fn create_private(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().mode(0o700).create(dir)
}

#[cfg(not(unix))]
fn create_private(dir: &Path) -> std::io::Result<()> {
    std::fs::DirBuilder::new().create(dir)
}

/// Checks the owner of an existing `dir` and closes its mode.
#[cfg(unix)]
fn secure(dir: &Path) -> Result<(), StoreError> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let io = |e| StoreError::Io(dir.to_path_buf(), e);
    // symlink_metadata: a link planted in place of the directory is not
    // followed to someone else's files.
    let meta = std::fs::symlink_metadata(dir).map_err(io)?;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if !meta.is_dir() || meta.uid() != me {
        return Err(StoreError::NotOwned(dir.to_path_buf()));
    }
    if meta.mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(io)?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn secure(dir: &Path) -> Result<(), StoreError> {
    // Outside Unix the user's profile directory is private by default.
    std::fs::metadata(dir).map_err(|e| StoreError::Io(dir.to_path_buf(), e))?;
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_new_directory_is_0700_and_an_open_one_is_closed() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a/b/cache");
        private_dir(&dir).unwrap();
        let mode = |d: &Path| std::fs::metadata(d).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        private_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
    }

    #[test]
    fn a_symlink_in_place_of_the_directory_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let link = tmp.path().join("cache");
        std::os::unix::fs::symlink(tmp.path(), &link).unwrap();
        assert!(matches!(private_dir(&link), Err(StoreError::NotOwned(_))));
    }
}
