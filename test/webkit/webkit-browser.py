#!/usr/bin/python3
"""A minimal WebKitGTK browser that WebKitWebDriver can drive, keeping its website data on disk.

MiniBrowser (Debian's webkit2gtk-driver default) runs automation sessions in an ephemeral data
store, where the Origin Private File System has no directory and navigator.storage.getDirectory()
rejects with UnknownError. This browser allows automation on a non-ephemeral web context whose
data lives in --data-dir, and turns on the Storage API and the File System API that WebKitGTK
ships switched off (Safari has them on). Usage (by the driver):
  webkit-browser.py --automation --data-dir=DIR [--feature=Name ...]
"""
import sys

import gi

gi.require_version('Gtk', '3.0')
gi.require_version('WebKit2', '4.1')
from gi.repository import Gtk, WebKit2  # noqa: E402

FEATURES = {'StorageAPI', 'StorageAPIEstimate', 'FileSystem', 'FileSystemWritableStream', 'AccessHandle'}


def arg(name, default=None):
    for a in sys.argv[1:]:
        if a.startswith(f'--{name}='):
            return a.split('=', 1)[1]
    return default


data_dir = arg('data-dir')
if not data_dir:
    sys.exit('webkit-browser.py: --data-dir=DIR is required')
FEATURES |= {a.split('=', 1)[1] for a in sys.argv[1:] if a.startswith('--feature=')}

manager = WebKit2.WebsiteDataManager(base_data_directory=f'{data_dir}/data', base_cache_directory=f'{data_dir}/cache')
context = WebKit2.WebContext(website_data_manager=manager)
context.set_automation_allowed(True)

settings = WebKit2.Settings()
all_features = WebKit2.Settings.get_all_features()
for i in range(all_features.get_length()):
    feature = all_features.get(i)
    if feature.get_identifier() in FEATURES:
        settings.set_feature_enabled(feature, True)
settings.set_enable_developer_extras(True)
settings.set_enable_write_console_messages_to_stdout(True)

windows = []


def create_web_view(_session):
    view = WebKit2.WebView(web_context=context, settings=settings, is_controlled_by_automation=True)
    window = Gtk.Window()
    window.set_default_size(1280, 800)
    window.add(view)
    window.show_all()
    windows.append(window)
    view.connect('close', lambda v: window.destroy())
    return view


def automation_started(_context, session):
    info = WebKit2.ApplicationInfo()
    info.set_name('recollect-webkit-browser')
    info.set_version(1, 0, 0)
    session.set_application_info(info)
    session.connect('create-web-view', create_web_view)


context.connect('automation-started', automation_started)
# The driver closes the session by closing its windows and then kills the process.
Gtk.main()
