#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
/// The pages of people and their access: their account (sessions, password), the app's members and invitations, the
/// audit log, and the page an invitation's link opens.
extension DashboardTemplates {
    static let notAllowed = """
        <h1>Not allowed</h1>
        <p id="not-allowed">Your role in this app is <strong>{{role}}</strong>; this needs <strong>{{least}}</strong> or above. Ask an owner of the app.</p>
        """

    static let noApp = """
        <h1>No app yet</h1>
        <p id="no-app">Your account is not a member of any app. Ask an app's owner for an invitation. <a href="/dashboard/account">Your account</a></p>
        """

    static let account = """
        <h1>Your account</h1>
        <p>Signed in as <strong id="account-email">{{email}}</strong>.</p>
        <h2>Sessions</h2>
        <table class="list" id="sessions">
          <thead><tr><th scope="col">Signed in</th><th scope="col">From</th><th scope="col">Browser</th><th scope="col"><span class="visually-hidden">End</span></th></tr></thead>
          <tbody>
          {{#sessions}}
          <tr><td>{{created}}</td><td>{{address}}</td><td>{{agent}}</td>
            <td>{{#current}}this one{{/current}}{{^current}}<form method="post" action="/dashboard/account/sessions/{{id}}/end" class="inline"><input type="hidden" name="csrf" value="{{csrf}}"><button class="link" aria-label="End the session signed in {{created}}">End</button></form>{{/current}}</td></tr>
          {{/sessions}}
          </tbody>
        </table>
        <h2>Password</h2>
        <form method="post" action="/dashboard/account/password" class="grid" id="change-password">
          <input type="hidden" name="csrf" value="{{csrf}}">
          <label>Current password <input type="password" name="currentPassword" autocomplete="current-password" required></label>
          <label>New password (12 characters or more) <input type="password" name="password" autocomplete="new-password" required minlength="12"></label>
          <button type="submit">Change the password</button>
        </form>
        <p class="muted">Changing it ends every other session of yours.</p>
        """

    static let members = """
        <h1>Members</h1>
        <table class="list" id="members">
          <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col"><span class="visually-hidden">Change</span></th></tr></thead>
          <tbody>
          {{#members}}
          <tr><td>{{email}}</td>
            <td><form method="post" action="/dashboard/members/{{id}}/role" class="inline"><input type="hidden" name="csrf" value="{{csrf}}">
              <label class="visually-hidden" for="role-{{id}}">Role of {{email}}</label>
              <select name="role" id="role-{{id}}">{{#roles}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/roles}}</select>
              <button class="link">Change</button></form></td>
            <td><form method="post" action="/dashboard/members/{{id}}/remove" class="inline"><input type="hidden" name="csrf" value="{{csrf}}"><button class="link" aria-label="Remove {{email}}">Remove</button></form></td></tr>
          {{/members}}
          </tbody>
        </table>
        <h2>Invite someone</h2>
        {{#inviteLink}}<p class="notice" id="invite-link">Send this link to {{invitedEmail}} (shown once, valid 72 hours, used once): <code>{{inviteLink}}</code></p>{{/inviteLink}}
        <form method="post" action="/dashboard/members/invite" class="grid" id="invite">
          <input type="hidden" name="csrf" value="{{csrf}}">
          <label>Email <input type="email" name="email" required></label>
          <label>Role <select name="role">{{#allRoles}}<option value="{{.}}">{{.}}</option>{{/allRoles}}</select></label>
          <button type="submit">Invite</button>
        </form>
        {{#hasInvitations}}
        <h2>Invitations not used yet</h2>
        <table class="list" id="invitations">
          <thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Withdraw</span></th></tr></thead>
          <tbody>
          {{#invitations}}
          <tr><td>{{email}}</td><td>{{role}}</td><td>{{expires}}</td>
            <td><form method="post" action="/dashboard/members/invitations/{{id}}/withdraw" class="inline"><input type="hidden" name="csrf" value="{{csrf}}"><button class="link" aria-label="Withdraw the invitation of {{email}}">Withdraw</button></form></td></tr>
          {{/invitations}}
          </tbody>
        </table>
        {{/hasInvitations}}
        """

    static let audit = """
        <div class="bar">
          <h1>Audit log</h1>
          <form method="get" action="/dashboard/audit" class="search">
            <label class="visually-hidden" for="audit-type">Kind of object</label>
            <select name="type" id="audit-type"><option value="">Everything</option>{{#types}}<option value="{{name}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/types}}</select>
            <button>Show</button>
          </form>
          <a class="button" href="/dashboard/audit.csv{{#typeQuery}}?type={{typeQuery}}{{/typeQuery}}" id="audit-csv">Download CSV</a>
        </div>
        {{^hasEvents}}<p class="muted" id="no-events">Nothing recorded yet.</p>{{/hasEvents}}
        {{#hasEvents}}
        <table class="list" id="audit">
          <thead><tr><th scope="col">When (UTC)</th><th scope="col">Who</th><th scope="col">From</th><th scope="col">What</th><th scope="col">Changes</th></tr></thead>
          <tbody>
          {{#events}}
          <tr><td>{{at}}</td><td>{{actor}}</td><td>{{address}}</td><td>{{action}} {{type}} <code>{{object}}</code></td>
            <td>{{#changes}}<div><strong>{{field}}</strong>: {{before}} → {{after}}</div>{{/changes}}</td></tr>
          {{/events}}
          </tbody>
        </table>
        {{/hasEvents}}
        """

    static let invitation = """
        <section class="narrow">
        <h1>Join {{appName}}</h1>
        <p>You were invited as <strong>{{role}}</strong> with <strong>{{email}}</strong>.
        {{#hasAccount}}That email has an account: give its password to join.{{/hasAccount}}{{^hasAccount}}Choose a password (12 characters or more) for your account.{{/hasAccount}}</p>
        <form method="post" action="/dashboard/invitations/{{token}}">
          <input type="hidden" name="csrf" value="{{csrf}}">
          <label>Password <input type="password" name="password" id="password" autocomplete="{{#hasAccount}}current-password{{/hasAccount}}{{^hasAccount}}new-password{{/hasAccount}}" required></label>
          <button type="submit" id="join">Join</button>
        </form>
        </section>
        """

    static let keys = """
        <h1>API keys</h1>
        {{#newKey}}<p class="notice" id="new-key">The new key (shown once; copy it now): <code>{{newKey}}</code></p>{{/newKey}}
        <table class="list" id="keys">
          <thead><tr><th scope="col">Key</th><th scope="col">Kind</th><th scope="col">Environment</th><th scope="col">Scopes</th><th scope="col">Made</th><th scope="col"><span class="visually-hidden">Revoke</span></th></tr></thead>
          <tbody>
          {{#keys}}
          <tr><td><code>{{hint}}</code></td><td>{{kind}}</td><td>{{environment}}</td><td>{{scopes}}</td><td>{{created}}</td>
            <td>{{#active}}{{#canEdit}}<form method="post" action="/dashboard/keys/{{id}}/revoke" class="inline"><input type="hidden" name="csrf" value="{{csrf}}"><button class="link" aria-label="Revoke {{hint}}">Revoke</button></form>{{/canEdit}}{{/active}}{{^active}}revoked{{/active}}</td></tr>
          {{/keys}}
          </tbody>
        </table>
        {{#canEdit}}
        <h2>Make a key</h2>
        <form method="post" action="/dashboard/keys" class="grid" id="make-key">
          <input type="hidden" name="csrf" value="{{csrf}}">
          <label>Kind <select name="kind"><option value="secret">secret (servers and scripts)</option><option value="publishable">publishable (inside the app)</option></select></label>
          <label>Environment <select name="environment"><option value="live">live</option><option value="test">test</option></select></label>
          <fieldset><legend>Scopes of a secret key (none ticked: every right)</legend>
            {{#scopes}}<label class="check"><input type="checkbox" name="scope-{{.}}"> {{.}}</label>{{/scopes}}
          </fieldset>
          <button type="submit">Make the key</button>
        </form>
        {{/canEdit}}
        {{^canEdit}}<p class="notice" id="read-only">Keys are made and revoked in the live environment.</p>{{/canEdit}}
        """

    static let teamTemplates = [("keys", keys), ("notAllowed", notAllowed), ("noApp", noApp), ("account", account), ("members", members), ("audit", audit),
                                ("invitation", invitation)]
}
#endif
