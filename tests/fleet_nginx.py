# tests/fleet_nginx.py: the nginx configuration that puts a fleet of `hermes mcp --listen
# --instance=NAME` behind one address, as the README shows it: a request that carries a handle
# (Mcp-Param-Handle, else a 2025-era Mcp-Session-Id) goes to the instance named before the
# handle's first dot, anything else to any instance. Shared by tests/mcp_fleet.py and
# bench/http_fleet.py; a module, not a test.
import os


def nginx_conf(d, ports, port, keepalive=0, connections=256):
    """Writes D/nginx/nginx.conf for the instances PORTS ({name: port}) behind 127.0.0.1:PORT
    and returns its path. KEEPALIVE > 0 keeps that many idle connections to each upstream (the
    benchmark's setting); each instance's upstream lists the others as backups."""
    keep = "        keepalive %d;\n" % keepalive if keepalive else ""
    ups = "".join("    upstream %s {\n        server 127.0.0.1:%d;\n%s%s    }\n"
                  % (n, p, "".join("        server 127.0.0.1:%d backup;\n" % q
                                   for m, q in ports.items() if m != n), keep)
                  for n, p in ports.items())
    every = "".join("        server 127.0.0.1:%d;\n" % p for p in ports.values())
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        os.makedirs(os.path.join(d, "nginx", sub), exist_ok=True)
    conf = """daemon off;
master_process off;
worker_processes 1;
pid {d}/nginx/nginx.pid;
error_log {d}/nginx/error.log warn;
events {{ worker_connections {connections}; }}
http {{
    access_log off;
    client_body_temp_path {d}/nginx/body;
    proxy_temp_path {d}/nginx/proxy;
    fastcgi_temp_path {d}/nginx/fastcgi;
    uwsgi_temp_path {d}/nginx/uwsgi;
    scgi_temp_path {d}/nginx/scgi;
    keepalive_requests 100000000;
    # the instance that holds a handle: the part before the first dot of Mcp-Param-Handle, else
    # of Mcp-Session-Id (2025-era sessions); anything else may go to any instance
    map "$http_mcp_param_handle|$http_mcp_session_id" $hermes_pool {{
        "~^(?<i>[a-z0-9-]+)\\." $i;
        "~^\\|(?<i>[a-z0-9-]+)\\." $i;
        default every;
    }}
{ups}    upstream every {{
{every}{keep}    }}
    server {{
        listen 127.0.0.1:{port};
        location = /mcp {{
            proxy_pass http://$hermes_pool;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffering off;
            proxy_read_timeout 1h;
        }}
    }}
}}
""".format(d=d, ups=ups, every=every, keep=keep, port=port, connections=connections)
    path = os.path.join(d, "nginx", "nginx.conf")
    with open(path, "w") as f:
        f.write(conf)
    return path
