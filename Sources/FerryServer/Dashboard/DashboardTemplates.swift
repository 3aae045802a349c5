#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import Mustache

/// The dashboard's pages, as Mustache templates. `{{value}}` escapes for HTML (quotes included), so every value
/// from a user is written with double braces; triple braces only ever hold markup the server made (a rendered page
/// body, the chart's SVG).
enum DashboardTemplates {
    static let layout = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="same-origin">
        <title>{{title}} · Ferry</title>
        <link rel="stylesheet" href="/dashboard/assets/dashboard.css">
        </head>
        <body>
        {{#signedIn}}
        <header class="top">
          <a class="brand" href="/dashboard">Ferry</a>
          <nav><a href="/dashboard">Links</a> <a href="/dashboard/attribution">Attribution</a>{{#mayManage}} <a href="/dashboard/settings">Settings</a> <a href="/dashboard/webhooks">Webhooks</a> <a href="/dashboard/keys">Keys</a> <a href="/dashboard/audit">Audit log</a>{{/mayManage}}{{#mayManageMembers}} <a href="/dashboard/members">Members</a>{{/mayManageMembers}}{{#person}} <a href="/dashboard/account">Account</a>{{/person}}</nav>
          {{^switcher}}<span class="app">{{appName}} <span class="env env-{{environment}}">{{environment}}</span></span>{{/switcher}}
          {{#switcher}}<form method="post" action="/dashboard/switch" class="inline" id="app-switcher"><input type="hidden" name="csrf" value="{{csrf}}">
            <label class="visually-hidden" for="switch-to">App and environment</label>
            <select name="to" id="switch-to">{{#choices}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/choices}}</select>
            <button class="link">Switch</button></form>{{/switcher}}
          {{#roleName}}<span class="muted" id="role">{{roleName}}</span>{{/roleName}}
          <form method="post" action="/dashboard/sign-out"><input type="hidden" name="csrf" value="{{csrf}}"><button class="link" id="sign-out">Sign out</button></form>
        </header>
        {{/signedIn}}
        <main>
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#error}}<p class="error" role="alert" id="error">{{error}}</p>{{/error}}
        {{{body}}}
        </main>
        </body>
        </html>
        """

    static let signIn = """
        <section class="narrow">
        <h1>Sign in to Ferry</h1>
        <form method="post" action="/dashboard/sign-in" id="sign-in-person">
          <input type="hidden" name="csrf" value="{{csrf}}">
          <label>Email <input type="email" name="email" id="email" autocomplete="email" required></label>
          <label>Password <input type="password" name="password" id="password" autocomplete="current-password" required></label>
          <button type="submit" id="sign-in-with-password">Sign in</button>
        </form>
        <h2>Or with a secret key</h2>
        <p>For a one-person setup: one of your app's <strong>secret keys</strong> (<code>fs_live_…</code> or <code>fs_test_…</code>), made without scopes. It is checked, never stored in the browser: a session cookie is.</p>
        <form method="post" action="/dashboard/sign-in">
          <input type="hidden" name="csrf" value="{{csrf}}">
          <label>Secret key <input type="password" name="key" id="key" required></label>
          <button type="submit" id="sign-in">Sign in with the key</button>
        </form>
        </section>
        """

    static let links = """
        <div class="bar">
          <h1>Links</h1>
          {{#mayEdit}}<a class="button" href="/dashboard/links/new" id="new-link">New link</a> <a class="button secondary" href="/dashboard/import" id="import-links">Import CSV</a>{{/mayEdit}}
        </div>
        {{#totals}}<p class="summary">Last 30 days: <strong>{{clicks}}</strong> clicks, <strong>{{uniqueVisitors}}</strong> visitors, <strong>{{installs}}</strong> installs attributed. <span class="muted" id="filtered-summary">Left out: <strong>{{filteredClicks}}</strong> clicks of bots, prefetches and email scanners.</span></p>{{/totals}}
        <form method="get" action="/dashboard" class="filters-form" id="filters" role="search" aria-label="Filter links">
          {{#madeInApp}}<input type="hidden" name="made" value="app">{{/madeInApp}}
          <label class="grow">Search <input type="search" name="q" id="q" value="{{q}}" placeholder="Slug, destination or campaign" maxlength="200"></label>
          <label>State <select name="status" id="status">{{#statuses}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/statuses}}</select></label>
          <label>Campaign <input name="campaign" id="campaign-filter" value="{{campaign}}" maxlength="200" size="12"></label>
          <label>Domain <select name="domain" id="domain-filter">{{#domains}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/domains}}</select></label>
          <label>Made from <input type="date" name="from" id="from" value="{{from}}"></label>
          <label>Made to <input type="date" name="to" id="to" value="{{to}}"></label>
          <div class="filter-buttons"><button type="submit" id="apply-filters">Filter</button>{{#narrowed}} <a href="/dashboard" id="clear-filters">Clear</a>{{/narrowed}}</div>
        </form>
        <p class="filters" id="link-filters">{{#madeInApp}}<a href="/dashboard">All links</a> · <strong>Made in the app</strong>{{/madeInApp}}{{^madeInApp}}<strong>All links</strong> · <a href="/dashboard?made=app" id="made-in-app">Made in the app</a>{{/madeInApp}}</p>
        {{#madeInApp}}
        <p class="muted">Share links installs of the app made with its publishable key{{^clientLinks}} (client links are off in the settings: no new ones are made){{/clientLinks}}.</p>
        {{#mayEdit}}<form method="post" action="/dashboard/links/delete-made-in-app" class="inline" id="delete-made-in-app">
          <input type="hidden" name="csrf" value="{{csrf}}">
          <label>Older than (days; empty: all) <input name="days" inputmode="numeric" size="5"></label>
          <button type="submit">Delete links made in the app</button>
        </form>{{/mayEdit}}
        {{/madeInApp}}
        {{#hasLinks}}
        <form method="post" action="/dashboard/links/bulk" id="bulk">
          <input type="hidden" name="csrf" value="{{csrf}}">
          {{#hidden}}<input type="hidden" name="{{name}}" value="{{value}}">{{/hidden}}
          {{#mayEdit}}<div class="bulk-actions"><button type="submit" name="change" value="disable" id="disable-selected">Disable selected</button> <button type="submit" name="change" value="enable" id="enable-selected">Enable selected</button>{{#filtered}} <button type="submit" name="change" value="disable-matching" id="disable-matching" class="danger">Disable every active link that matches</button> <span class="muted">(up to {{bulkLimit}} at a time)</span>{{/filtered}}</div>{{/mayEdit}}
          <fieldset class="plain"><legend class="visually-hidden">Links{{#mayEdit}} to change{{/mayEdit}}</legend>
          <table class="list">
            <thead><tr>{{#mayEdit}}<th class="pick"><span class="visually-hidden">Select</span></th>{{/mayEdit}}<th>Short URL</th><th>Destination</th><th>Campaign</th><th>Status</th><th>Created</th></tr></thead>
            <tbody>
            {{#links}}<tr>{{#mayEdit}}<td class="pick"><input type="checkbox" name="id" value="{{id}}" aria-label="Select {{url}}"></td>{{/mayEdit}}<td><a href="/dashboard/links/{{id}}">{{url}}</a>{{#createdInApp}} <span class="badge" title="Made in the app with its publishable key">in app</span>{{/createdInApp}}</td><td class="clip">{{destination}}</td><td>{{campaign}}</td><td><span class="status status-{{status}}">{{status}}</span></td><td>{{created}}</td></tr>
            {{/links}}
            </tbody>
          </table>
          </fieldset>
        </form>
        {{/hasLinks}}
        {{^hasLinks}}<p class="empty" id="no-links">{{#narrowed}}No links match these filters.{{/narrowed}}{{^narrowed}}No links yet.{{/narrowed}}</p>{{/hasLinks}}
        {{#next}}<p><a href="/dashboard?cursor={{next}}{{filter}}" id="older-links">Older links →</a></p>{{/next}}
        """

    static let linkForm = """
        <h1>{{heading}}</h1>
        <form method="post" action="{{action}}" class="grid">
          <input type="hidden" name="csrf" value="{{csrf}}">
          {{#creating}}
          <label>Slug <input name="slug" id="slug" value="{{slug}}" placeholder="generated when empty" maxlength="128" title="Letters, digits, - and _; up to 4 segments separated by / (promo/spring-26)"></label>
          <label>Domain <select name="domain">{{#domains}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/domains}}</select></label>
          {{/creating}}
          <label class="wide">Destination (web) <input name="destination" id="destination" value="{{destination}}" required maxlength="4096"></label>
          <label>iOS deep link <input name="iosURL" value="{{iosURL}}" placeholder="myapp://path or https://…"></label>
          <label>Android deep link <input name="androidURL" value="{{androidURL}}"></label>
          <label>Campaign <input name="campaign" id="campaign" value="{{campaign}}"></label>
          <label>UTM source <input name="utmSource" value="{{utmSource}}"></label>
          <label>UTM medium <input name="utmMedium" value="{{utmMedium}}"></label>
          <label>UTM campaign <input name="utmCampaign" value="{{utmCampaign}}"></label>
          <label>Preview title <input name="title" value="{{title}}"></label>
          <label>Preview image URL <input name="imageURL" value="{{imageURL}}"></label>
          <label class="wide">Preview description <textarea name="description" rows="2">{{description}}</textarea></label>
          <label class="wide"><span>Params for the app (one <code>key=value</code> per line)</span> <textarea name="params" rows="3">{{params}}</textarea></label>
          <fieldset class="wide grid" id="routing">
            <legend>Routing for this link (each field set here replaces the app's setting)</legend>
            <label>iPhone without the app goes to <input name="iosFallbackURL" value="{{iosFallbackURL}}" placeholder="the App Store"></label>
            <label>iPad without the app goes to <input name="ipadFallbackURL" value="{{ipadFallbackURL}}" placeholder="as an iPhone"></label>
            <label>iPad app bundle id <input name="ipadBundleID" value="{{ipadBundleID}}"></label>
            <label>App Store id <input name="appStoreID" value="{{appStoreID}}" inputmode="numeric" placeholder="the app's"></label>
            <label>Lowest iOS app version <input name="iosMinimumVersion" value="{{iosMinimumVersion}}" placeholder="2.4.1"></label>
            <label>Android without the app goes to <input name="androidFallbackURL" value="{{androidFallbackURL}}" placeholder="the Play Store"></label>
            <label>Lowest Android version code <input name="androidMinimumVersionCode" value="{{androidMinimumVersionCode}}" inputmode="numeric"></label>
            <label>Desktops and other platforms go to <input name="otherPlatformFallbackURL" value="{{otherPlatformFallbackURL}}" placeholder="the destination"></label>
            <label class="check"><input type="checkbox" name="skipPreviewPage" value="1"{{#skipPreviewPage}} checked{{/skipPreviewPage}}> Skip the preview page (bots and iPhones go straight on)</label>
          </fieldset>
          <div class="wide"><button type="submit" id="save">{{button}}</button> <button type="submit" name="preview" value="1" id="preview-link" class="secondary">Preview</button> <a href="{{cancel}}">Cancel</a></div>
        </form>
        {{#preview}}
        <section id="link-preview" aria-labelledby="preview-heading">
          <h2 id="preview-heading">How it will look when shared</h2>
          <div class="card" id="preview-card">
            {{#showsImage}}<img src="{{imageURL}}" alt="" referrerpolicy="no-referrer" class="card-image">{{/showsImage}}
            <div class="card-text">
              <span class="muted card-site">{{site}}</span>
              <strong class="card-title">{{title}}</strong>
              {{#description}}<span class="card-description">{{description}}</span>{{/description}}
            </div>
          </div>
          <p class="muted">What Facebook, Slack, iMessage and the like show for <code>{{shortURL}}</code>: the link's title, description and image, else the app's ({{siteName}}).{{#imageURL}} Image: <code>{{imageURL}}</code>.{{/imageURL}}{{^imageURL}} No image: most apps then show a small card.{{/imageURL}}</p>
          <h2>Where each visitor goes</h2>
          <div class="scroll"><table class="list" id="preview-routes">
            <thead><tr><th>Visitor</th><th>Answer</th><th>Goes to</th><th>Why</th></tr></thead>
            <tbody>
            {{#cases}}<tr><td>{{label}}</td><td>{{answer}}</td><td class="clip">{{url}}</td><td>{{reason}}</td></tr>
            {{/cases}}
            </tbody>
          </table></div>
          {{#hasWarnings}}<ul id="preview-warnings">{{#warnings}}<li class="{{severity}}">{{message}}</li>{{/warnings}}</ul>{{/hasWarnings}}
        </section>
        {{/preview}}
        """

    static let importForm = """
        <h1>Import links</h1>
        <p>Creates the links of a Firebase Dynamic Links export (the CSV of Google Takeout) in this app's <strong>{{environment}}</strong> links. Rows imported before are counted, not made twice, so a file can be imported again; each link made is in the audit log. The same import runs from the command line as <code>ferry import firebase</code> (see docs/migrating.md in Ferry's repository).</p>
        {{#running}}<p class="notice" role="status">An import of {{fileName}} is running: <a href="/dashboard/import/{{id}}" id="running-import">see how far it got</a>.</p>{{/running}}
        <form method="post" action="/dashboard/import" enctype="multipart/form-data" class="grid" id="import-form">
          <input type="hidden" name="csrf" value="{{csrf}}">
          <label class="wide">The exported CSV file (up to {{maxMiB}} MiB) <input type="file" name="file" id="import-file" accept=".csv,text/csv" required></label>
          <label>Domain of the links <select name="domain" id="import-domain"><option value="">Each short link's own (one of the app's)</option>{{#domains}}<option value="{{name}}">{{name}}</option>{{/domains}}</select></label>
          <label class="check"><input type="checkbox" name="dryRun" value="1" id="import-dry-run"> Only check the file: say what would be made, make nothing</label>
          <div class="wide"><button type="submit" id="start-import">Import</button> <a href="/dashboard">Cancel</a></div>
        </form>
        """

    static let importJob = """
        <h1>{{#running}}Importing {{fileName}}…{{/running}}{{^running}}Import of {{fileName}}{{/running}}</h1>
        <p class="muted">Started {{started}} by {{startedBy}}{{#dryRun}}; a check only: nothing is made{{/dryRun}}.</p>
        {{#running}}<p class="muted">This page shows the rows done as they are done, then what the import did. Leaving it does not stop the import.</p>{{/running}}
        <div class="import-steps" id="import-steps">{{{steps}}}</div>
        {{{result}}}
        """

    static let importStep = """
        {{^counted}}<p class="step">Reading the file…</p>{{/counted}}{{#counted}}<p class="step"><progress max="{{total}}" value="{{done}}" aria-label="Rows imported">{{percent}}%</progress> <span class="import-count">{{done}} of {{total}} rows ({{percent}}%)</span></p>{{/counted}}

        """

    static let importResult = """
        <h2 id="import-done">{{#failure}}Stopped{{/failure}}{{^failure}}Done{{/failure}}</h2>
        {{#failure}}<p class="error" role="alert" id="import-failure">{{failure}}</p>{{/failure}}
        {{#summary}}
        <ul class="totals" id="import-summary">
          <li><strong>{{rows}}</strong> rows</li>
          <li><strong>{{created}}</strong> {{#dryRun}}would be {{/dryRun}}created</li>
          <li><strong>{{alreadyThere}}</strong> already there</li>
          <li><strong>{{skipped}}</strong> skipped</li>
        </ul>
        {{#hasSkipped}}<h2>Skipped rows</h2>
        {{#reasons}}<h3><code>{{code}}</code>: {{count}} row(s)</h3>
        <ul>{{#rows}}<li>Line {{line}}: {{message}}</li>{{/rows}}</ul>
        {{#hasMore}}<p class="muted">… and {{more}} more.</p>{{/hasMore}}
        {{/reasons}}
        <p><a href="/dashboard/import/{{id}}/skipped.csv" id="skipped-csv">Download every skipped row (CSV)</a></p>{{/hasSkipped}}
        {{#hasNotes}}<h2>Notes</h2><ul id="import-notes">{{#notes}}<li>{{note}} ({{count}} rows)</li>{{/notes}}</ul>{{/hasNotes}}
        {{/summary}}
        <p><a href="/dashboard" id="see-links">See the links</a> · <a href="/dashboard/import">Import another file</a></p>
        """

    static let importGone = """
        <h1>No such import</h1>
        <p>Imports are remembered for an hour after they finish, on the server that ran them. The links an import made are in the <a href="/dashboard">links</a> and the audit log; to see its summary again, import the same file again: what is there already is counted, not made twice.</p>
        """

    static let link = """
        <div class="bar">
          <h1>{{slug}}</h1>
          <a class="button" href="/dashboard/links/{{id}}/edit" id="edit-link">Edit</a>
          <form method="post" action="/dashboard/links/{{id}}/{{toggle}}"><input type="hidden" name="csrf" value="{{csrf}}"><button id="toggle">{{toggleLabel}}</button></form>
        </div>
        <section class="link-head">
          <div>
            <p class="short"><a href="{{url}}" id="short-url">{{url}}</a> <span class="status status-{{status}}">{{status}}</span></p>
            <p>→ <span class="clip">{{destination}}</span></p>
            {{#campaign}}<p>Campaign: {{campaign}}</p>{{/campaign}}
            {{#longLink}}<p class="muted">A Firebase Dynamic Links long link, recorded when it was first followed.</p>{{/longLink}}
            {{#createdInApp}}<p class="muted" id="made-in-app">A share link made in the app, with its publishable key.</p>{{/createdInApp}}
            {{#hasRouting}}<ul class="routing" id="link-routing">{{#routing}}<li>{{label}}: <span class="clip">{{value}}</span></li>{{/routing}}</ul>{{/hasRouting}}
            <p class="muted">Created {{created}}</p>
          </div>
          <figure class="qr"><img src="/dashboard/links/{{id}}/qr.svg" alt="QR code of {{url}}" width="160" height="160" id="qr"><figcaption><a href="/dashboard/links/{{id}}/qr.png" download>PNG</a> · <a href="/dashboard/links/{{id}}/qr.svg" download>SVG</a></figcaption></figure>
        </section>
        <h2>Last 30 days</h2>
        <ul class="totals" id="totals">
          <li><strong id="total-clicks">{{totals.clicks}}</strong> clicks</li>
          <li><strong>{{totals.uniqueVisitors}}</strong> visitors</li>
          <li><strong id="total-installs">{{totals.installs}}</strong> installs <span class="muted">({{totals.deterministicInstalls}} certain, {{totals.probabilisticInstalls}} probable)</span></li>
          <li><strong>{{totals.opens}}</strong> opens</li>
          <li><strong id="total-filtered">{{totals.filteredClicks}}</strong> left out <span class="muted">(bots, prefetches, email scanners)</span></li>
        </ul>
        <div class="chart-box">{{{chart}}}<p class="legend"><span class="key clicks"></span> clicks <span class="key installs"></span> installs</p></div>
        <div class="breakdowns">
        {{#breakdowns}}
          <section><h3>{{name}}</h3>{{#hasRows}}<table>{{#rows}}<tr><td>{{label}}</td><td class="num">{{count}}</td></tr>{{/rows}}</table>{{/hasRows}}{{^hasRows}}<p class="muted">Nothing yet.</p>{{/hasRows}}</section>
        {{/breakdowns}}
        </div>
        """

    static let settings = """
        <h1>Settings</h1>
        {{^canEdit}}<p class="notice" id="read-only">You signed in with a test key: the app's settings and domains are shown, not changed. Sign in with a live secret key (fs_live_…) to change them.</p>{{/canEdit}}
        <form method="post" action="/dashboard/settings" class="grid">
          <input type="hidden" name="csrf" value="{{csrf}}">
          <label>App name <input name="name" value="{{name}}" required></label>
          <label>Attribution window (hours) <input name="attributionWindow" value="{{windowHours}}" inputmode="numeric"></label>
          <label>Least confidence of a probable match ({{minConfidenceRange}}; 1: certain matches only; empty: the server's default) <input name="minConfidence" value="{{minConfidence}}" id="min-confidence" inputmode="decimal" placeholder="default"></label>
          <label>Attribution model <select name="attributionModel" id="attribution-model"><option value="fixed"{{#modelFixed}} selected{{/modelFixed}}>Fixed: the numbers every app shares</option><option value="learned"{{#modelLearned}} selected{{/modelLearned}}>Learned from this app's installs</option></select></label>
          <label>Apple team id <input name="teamID" value="{{teamID}}"></label>
          <label>iOS bundle ids (one per line) <textarea name="bundleIDs" rows="2">{{bundleIDs}}</textarea></label>
          <label>App Store id <input name="appStoreID" value="{{appStoreID}}"></label>
          <label>URL scheme <input name="urlScheme" value="{{urlScheme}}"></label>
          <label>Android package <input name="androidPackage" value="{{androidPackage}}"></label>
          <label>Android SHA-256 fingerprints (one per line) <textarea name="androidFingerprints" rows="2">{{androidFingerprints}}</textarea></label>
          <label class="wide">Fallback URL <input name="fallbackURL" value="{{fallbackURL}}"></label>
          <label class="wide">URL patterns long links and share links made in the app may lead to (regular expressions, one per line; empty: only this app's own sites) <textarea name="allowedURLPatterns" id="allowed-url-patterns" rows="3" placeholder="^https://example\\.com/.*$">{{allowedURLPatterns}}</textarea></label>
          <label class="wide check"><input type="checkbox" name="clientLinks" id="client-links" value="on"{{#clientLinks}} checked{{/clientLinks}}> Let the app create share links with its publishable key (within the URL patterns above)</label>
          {{#canEdit}}<div class="wide"><button type="submit" id="save-settings">Save settings</button></div>{{/canEdit}}
        </form>
        <h2>Link domains</h2>
        <table class="list" id="domains">
          <thead><tr><th>Domain</th><th>Status</th><th></th></tr></thead>
          <tbody>
          {{#domains}}<tr><td>{{name}}</td><td>{{status}}</td><td>{{#canEdit}}<div class="actions">
            {{#pending}}<form method="post" action="/dashboard/domains/verify"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="domain" value="{{name}}"><button class="link">Verify</button></form>{{/pending}}
            {{#canMakeDefault}}<form method="post" action="/dashboard/domains/default"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="domain" value="{{name}}"><button class="link">Make default</button></form>{{/canMakeDefault}}
            {{#canRemove}}<form method="post" action="/dashboard/domains/remove"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="domain" value="{{name}}"><button class="link">Remove</button></form>{{/canRemove}}
            {{#active}}<form method="post" action="/dashboard/domains/prefix"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="domain" value="{{name}}"><input name="pathPrefix" value="{{prefix}}" placeholder="/links" size="8" aria-label="Path prefix of {{name}}" title="Links under a path prefix (/links/{slug}); empty: /{slug}"><button class="link">Set path prefix</button></form>{{/active}}
          </div>{{/canEdit}}</td></tr>
          {{#pending}}<tr><td colspan="3" class="muted">Prove you control {{name}}: publish a DNS TXT record named <code>{{dnsName}}</code> with the value <code>{{proof}}</code>, or have the site now at {{name}} serve that value as text at <code>{{httpURL}}</code>. Then choose Verify. Until then the domain serves nothing.</td></tr>{{/pending}}
          {{/domains}}
          </tbody>
        </table>
        {{#canEdit}}{{#selfService}}<form method="post" action="/dashboard/domains" class="inline">
          <input type="hidden" name="csrf" value="{{csrf}}">
          <label>Domain <input name="domain" placeholder="go.example.com" required></label>
          <button type="submit">Add domain</button>
        </form>{{/selfService}}{{^selfService}}<p class="muted">On this server the operator adds link domains (<code>ferry app update --add-domain</code>).</p>{{/selfService}}{{/canEdit}}
        <h2>Webhooks</h2>
        <p>Webhooks, with what each of their latest deliveries came to, are on <a href="/dashboard/webhooks" id="webhooks-page">their own page</a>.</p>
        """

    static let webhooks = """
        <h1>Webhooks</h1>
        <p class="muted">Each event is sent as a signed <code>POST</code> to every webhook that takes it, and tried again after 10 s, 30 s, 1.5 min, 4.5 min, 13.5 min, 40 min and 2 h until a 2xx answer (see docs/analytics.md). These are the {{environment}} environment's webhooks.</p>
        {{#newSecret}}<p class="notice" role="status">Signing secret of the new webhook (shown once): <code id="webhook-secret">{{newSecret}}</code></p>{{/newSecret}}
        {{^hasWebhooks}}<p class="empty" id="no-webhooks">No webhooks yet.</p>{{/hasWebhooks}}
        {{#webhooks}}
        <section class="webhook" id="webhook-{{id}}">
          <div class="bar">
            <h2 class="clip">{{url}}</h2>
            <form method="post" action="/dashboard/webhooks/{{id}}/delete"><input type="hidden" name="csrf" value="{{csrf}}"><button class="link" aria-label="Remove the webhook to {{url}}">Remove</button></form>
          </div>
          <p class="muted">Events: {{events}} · added {{created}}</p>
          {{#hasDeliveries}}<div class="scroll"><table class="list deliveries">
            <thead><tr><th>Queued</th><th>Event</th><th>Outcome</th><th class="num">Attempts</th><th class="num">Last answer</th><th>Last error</th></tr></thead>
            <tbody>
            {{#deliveries}}<tr><td>{{queued}}</td><td>{{event}}</td><td><span class="status status-{{state}}">{{outcome}}</span></td><td class="num">{{attempts}}</td><td class="num">{{lastStatus}}</td><td class="clip">{{lastError}}</td></tr>
            {{/deliveries}}
            </tbody>
          </table></div>{{/hasDeliveries}}
          {{^hasDeliveries}}<p class="empty">Nothing sent yet.</p>{{/hasDeliveries}}
        </section>
        {{/webhooks}}
        <h2>Add a webhook</h2>
        <form method="post" action="/dashboard/webhooks" class="inline" id="add-webhook">
          <input type="hidden" name="csrf" value="{{csrf}}">
          <label>URL <input name="url" placeholder="https://api.example.com/ferry" required></label>
          <label><input type="checkbox" name="link.clicked" checked> link.clicked</label>
          <label><input type="checkbox" name="install.attributed" checked> install.attributed</label>
          <button type="submit">Add webhook</button>
        </form>
        """

    static let attribution = """
        <h1>Attribution</h1>
        <h2>Clicks, installs and opens</h2>
        <p class="muted">The last 30 days ({{from}} to {{to}}, UTC), people's clicks only.</p>
        <ul class="totals" id="activity">
          <li><strong>{{clicks}}</strong> clicks</li>
          <li><strong>{{installs}}</strong> installs attributed <span class="muted">({{installRate}} of clicks)</span></li>
          <li><strong>{{deterministic}}</strong> certain <span class="muted">({{deterministicShare}})</span></li>
          <li><strong>{{probabilistic}}</strong> probable</li>
          <li><strong>{{organicInstalls}}</strong> organic <span class="muted">(first launches without a link; {{attributedShare}} of first launches came from one)</span></li>
          <li><strong>{{opens}}</strong> opens by a link</li>
        </ul>
        <figure class="chart-box" id="activity-chart">{{{activityChart}}}<figcaption class="legend"><span class="key clicks"></span> clicks <span class="key installs"></span> installs <span class="key opens"></span> opens</figcaption></figure>
        <h2>Confidence of the probable matches</h2>
        <p class="muted">How sure each install matched by device and network signals was, in tenths; the dashed line is the least confidence the app answers with ({{least}}): below it an install is organic. Certain matches (a click token, the Play Store referrer) are not shown: their confidence is 1.</p>
        {{#hasConfidences}}<figure class="chart-box" id="confidence-chart">{{{confidenceChart}}}</figure>
        <table class="list" id="confidence">
          <thead><tr><th>Confidence</th><th class="num">Matches</th><th class="num">Share</th></tr></thead>
          <tbody>
          {{#confidenceBands}}<tr><td>{{range}}</td><td class="num">{{count}}</td><td class="num">{{share}}</td></tr>
          {{/confidenceBands}}
          </tbody>
        </table>{{/hasConfidences}}
        {{^hasConfidences}}<p class="empty" id="no-confidences">No probable matches in these 30 days.</p>{{/hasConfidences}}
        <h2>The model</h2>
        <p id="model">The app's {{environment}} installs are matched with the <strong>{{model}}</strong> model{{#active}}: version {{version}}, fitted {{fitted}} on {{observations}} observations{{/active}}{{^active}}; no version was fitted yet{{/active}}.</p>
        {{#isFixed}}<p class="muted">The fixed model is the same for every app. Choose <em>Learned from this app's installs</em> in <a href="/dashboard/settings">Settings</a> to have the app's own model fitted from its installs every few hours; until then the figures below judge the fixed model.</p>{{/isFixed}}
        <p class="muted">Observations of the last 28 days read (the newest {{limit}} at most): {{observations}}; labelled by a click token or the Play Store referrer {{labelled}}, organic {{organicLabels}}, answered by the probabilistic tier {{unlabelled}}.</p>
        <form method="post" action="/dashboard/attribution/refit" class="inline">
          <input type="hidden" name="csrf" value="{{csrf}}">
          <button type="submit" id="refit">Refit the {{environment}} model now</button>
        </form>
        <h2>Accuracy on labelled installs</h2>
        <p class="muted">Each install a click token or the Play Store referrer tied to its click is answered again as if it had carried neither, at {{threshold}}.</p>
        <table class="list" id="accuracy">
          <thead><tr><th>Segment</th><th class="num">Labelled</th><th class="num">Matched</th><th class="num">Right</th><th class="num">Precision</th><th class="num">Recall</th><th class="num">Matches at 0.40+</th><th class="num">ECE</th></tr></thead>
          <tbody>
          {{#cells}}<tr><td>{{name}}</td><td class="num">{{labelled}}</td><td class="num">{{answered}}</td><td class="num">{{correct}}</td><td class="num">{{precision}}</td><td class="num">{{recall}}</td><td class="num">{{matches}}</td><td class="num">{{ece}}</td></tr>
          {{/cells}}
          </tbody>
        </table>
        {{#organic}}<p id="organic">Organic installs (a Play Store referrer without a click) attributed to a click: {{attributed}} of {{of}} ({{rate}}).</p>{{/organic}}
        <h2>Calibration</h2>
        <p class="muted">Share of matches right against the confidence stated, for every match stated at 0.40 or more; a calibrated model follows the dashed line.</p>
        <figure class="chart-box" id="calibration-chart">{{{chart}}}</figure>
        {{#hasBands}}<table class="list" id="calibration">
          <thead><tr><th>Stated</th><th class="num">Matches</th><th class="num">Mean stated</th><th class="num">Observed</th></tr></thead>
          <tbody>
          {{#bands}}<tr><td>{{range}}</td><td class="num">{{count}}</td><td class="num">{{stated}}</td><td class="num">{{observed}}</td></tr>
          {{/bands}}
          </tbody>
        </table>{{/hasBands}}
        {{#hasParameters}}<h2>Parameters</h2>
        <table class="list" id="parameters">
          <thead><tr><th>Parameter</th><th class="num">Prior</th><th class="num">Fitted</th></tr></thead>
          <tbody>
          {{#parameters}}<tr><td>{{name}}</td><td class="num">{{prior}}</td><td class="num">{{fitted}}</td></tr>
          {{/parameters}}
          </tbody>
        </table>{{/hasParameters}}
        {{#hasVersions}}<h2>Versions</h2>
        <table class="list" id="versions">
          <thead><tr><th>Version</th><th>Fitted</th><th class="num">Observations</th><th>Status</th></tr></thead>
          <tbody>
          {{#versions}}<tr><td>{{version}}</td><td>{{fitted}}</td><td class="num">{{observations}}</td><td>{{status}}</td></tr>
          {{/versions}}
          </tbody>
        </table>{{/hasVersions}}
        """

    static let stylesheet = """
        :root { --ink: #1f2933; --muted: #5b6470; --line: #e3e6ea; --accent: #2563eb; --bg: #f7f8fa; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--bg); }
        main { max-width: 1080px; margin: 0 auto; padding: 24px; overflow-wrap: break-word; }
        code { overflow-wrap: anywhere; }
        .top { display: flex; gap: 20px; align-items: center; padding: 10px 24px; background: #fff; border-bottom: 1px solid var(--line); }
        .top nav { display: flex; gap: 14px; flex: 1; }
        .brand { font-weight: 700; color: var(--ink); text-decoration: none; }
        a { color: var(--accent); }
        h1 { font-size: 24px; margin: 0 0 12px; }
        .bar { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; margin-bottom: 12px; }
        .bar h1 { margin: 0; flex: 1; }
        .filters-form { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: end; background: #fff; padding: 12px 14px; border: 1px solid var(--line); border-radius: 8px; margin-bottom: 8px; }
        .filters-form label { display: flex; flex-direction: column; gap: 2px; font-size: 13px; color: var(--muted); }
        .filters-form .grow { flex: 1 1 220px; }
        .filters-form .filter-buttons { display: flex; gap: 12px; align-items: center; }
        .bulk-actions { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 8px 0; }
        button.secondary, .button.secondary { background: #fff; color: var(--accent); }
        button.danger { background: #b91c1c; border-color: #b91c1c; }
        .list .pick { width: 36px; }
        .import-steps .step:not(:last-child) { display: none; }
        .import-steps progress { width: 240px; max-width: 60%; vertical-align: middle; }
        fieldset.plain { border: 0; padding: 0; margin: 0; min-width: 0; }
        .card { display: flex; flex-direction: column; max-width: 520px; background: #fff; border: 1px solid var(--line); border-radius: 10px; overflow: hidden; margin: 8px 0; }
        .card-image { width: 100%; max-height: 272px; object-fit: cover; background: var(--bg); }
        .card-text { display: flex; flex-direction: column; gap: 2px; padding: 10px 14px; }
        .card-site { font-size: 12px; text-transform: uppercase; }
        #preview-warnings .warning { color: #991b1b; }
        input, select, textarea { font: inherit; padding: 6px 8px; border: 1px solid #c5cbd3; border-radius: 6px; width: 100%; background: #fff; }
        input[type=checkbox] { width: auto; }
        button, .button { font: inherit; padding: 6px 14px; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
        button.link { background: none; border: none; color: var(--accent); padding: 0; }
        .grid { display: grid; grid-template-columns: 1fr 1fr; gap: 12px 20px; background: #fff; padding: 20px; border: 1px solid var(--line); border-radius: 8px; }
        .grid label { display: flex; flex-direction: column; gap: 4px; font-size: 13px; color: var(--muted); }
        .grid .wide { grid-column: 1 / -1; }
        .inline { display: flex; gap: 12px; align-items: end; flex-wrap: wrap; margin-top: 12px; }
        .inline label { display: flex; gap: 6px; align-items: center; }
        .actions { display: flex; gap: 12px; }
        .narrow { max-width: 420px; margin: 60px auto; background: #fff; padding: 28px; border: 1px solid var(--line); border-radius: 8px; }
        .narrow form { display: flex; flex-direction: column; gap: 12px; }
        table { border-collapse: collapse; width: 100%; background: #fff; }
        .list th, .list td { text-align: left; padding: 8px 10px; border-bottom: 1px solid var(--line); }
        .clip { max-width: 360px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .status { font-size: 12px; padding: 1px 8px; border-radius: 10px; background: #dcfce7; color: #166534; white-space: nowrap; }
        .status-disabled, .status-expired { background: #fee2e2; color: #991b1b; }
        .badge { font-size: 11px; padding: 1px 6px; border-radius: 8px; background: #e0e7ff; color: #3730a3; white-space: nowrap; }
        .filters { margin: 8px 0; }
        label.check, .grid label.check { display: flex; flex-direction: row; gap: 8px; align-items: center; }
        .env { font-size: 12px; padding: 1px 6px; border-radius: 4px; background: #dbeafe; }
        .env-test { background: #fef3c7; }
        .notice { background: #ecfdf5; border: 1px solid #a7f3d0; padding: 8px 12px; border-radius: 6px; }
        .error { background: #fef2f2; border: 1px solid #fecaca; padding: 8px 12px; border-radius: 6px; color: #991b1b; }
        .muted, .empty { color: var(--muted); }
        .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
        .link-head { display: flex; justify-content: space-between; gap: 24px; background: #fff; padding: 16px 20px; border: 1px solid var(--line); border-radius: 8px; }
        .short { font-size: 18px; }
        .qr { margin: 0; text-align: center; }
        .totals { display: flex; gap: 28px; list-style: none; padding: 0; }
        .totals strong { font-size: 22px; display: block; }
        .chart-box { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px; overflow-x: auto; }
        .legend .key { display: inline-block; width: 14px; height: 3px; vertical-align: middle; margin-left: 12px; }
        .legend .clicks { background: #2563eb; } .legend .installs { background: #16a34a; } .legend .opens { background: #d97706; }
        .breakdowns { display: grid; grid-template-columns: repeat(auto-fill, minmax(240px, 1fr)); gap: 16px; margin-top: 16px; }
        .breakdowns section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px; }
        .breakdowns h3 { margin: 0 0 8px; font-size: 14px; }
        .breakdowns td { padding: 3px 0; border-bottom: 1px solid var(--line); }
        .num, .list .num { text-align: right; font-variant-numeric: tabular-nums; }
        .webhook { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; margin-bottom: 16px; }
        .webhook h2 { font-size: 16px; margin: 0; flex: 1; }
        .status-failed { background: #fee2e2; color: #991b1b; } .status-waiting { background: #fef3c7; color: #92400e; }
        .scroll { overflow-x: auto; }
        a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
        @media (max-width: 700px) {
          main { padding: 14px; }
          .top { flex-wrap: wrap; gap: 10px 16px; padding: 10px 14px; }
          .top nav { flex-basis: 100%; flex-wrap: wrap; gap: 8px 14px; order: 3; }
          .grid { grid-template-columns: 1fr; padding: 14px; }
          .filters-form label, .filters-form .grow { flex: 1 1 140px; }
          .link-head { flex-direction: column; }
          .totals { flex-wrap: wrap; gap: 16px; }
          .clip { max-width: 180px; }
          table.list { display: block; overflow-x: auto; }
        }
        """

    /// The templates, parsed once.
    static func library() throws -> MustacheLibrary {
        var library = MustacheLibrary()
        for (name, text) in [("layout", layout), ("signIn", signIn), ("links", links), ("linkForm", linkForm), ("link", link), ("settings", settings), ("webhooks", webhooks), ("attribution", attribution),
                             ("importForm", importForm), ("importJob", importJob), ("importStep", importStep),
                             ("importResult", importResult), ("importGone", importGone)] + teamTemplates {
            try library.register(text, named: name)
        }
        return library
    }
}
#endif
