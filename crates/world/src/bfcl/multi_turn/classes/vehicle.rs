//! BFCL's `VehicleControlAPI` (`vehicle_control.py`): engine, doors,
//! climate, brakes, cruise control and a few lookups, with the results and
//! state BFCL's Python class gives for the same calls.
//!
//! Numbers stay the Python values the calls passed in (an int temperature
//! is stored as an int), so arithmetic goes through the shared
//! [`pyops`](crate::bfcl::multi_turn::pyops). Long-context entries add
//! BFCL's filler text from `vehicle_long_context.json`.

use std::sync::LazyLock;

use crate::bfcl::multi_turn::pyops::{self, dict, error, iterate, truthy, Cmp, Op};
use crate::bfcl::multi_turn::pyrandom::PyRandom;
use crate::bfcl::multi_turn::{opt, req, ApiClass, Args, Attr, Method, PyError};
use crate::bfcl::pyvalue::{str_repr, Py};

const MAX_FUEL_LEVEL: i128 = 50;
const MIN_FUEL_LEVEL: f64 = 0.0;
const MILE_PER_GALLON: f64 = 20.0;
const DEFAULT_RANDOM_SEED: i128 = 141053;

/// The doors `DEFAULT_STATE` has, all unlocked.
const DOORS: [&str; 4] = ["driver", "passenger", "rear_left", "rear_right"];

/// The distance table of `estimate_distance`: either order of the two zipcodes.
const DISTANCES: &[(&str, &str, f64)] = &[
    ("83214", "74532", 750.0),
    ("56108", "62947", 320.0),
    ("71354", "83462", 450.0),
    ("47329", "52013", 290.0),
    ("69238", "51479", 630.0),
    ("94016", "83214", 980.0),
    ("94016", "94704", 600.0),
    ("94704", "08540", 2550.0),
    ("94016", "08540", 1950.0),
    ("62947", "47329", 1053.0),
    ("94016", "62947", 780.0),
    ("74532", "94016", 880.0),
];

/// The cities `get_zipcode_based_on_city` knows.
const ZIPCODES: &[(&str, &str)] = &[
    ("Rivermist", "83214"),
    ("Stonebrook", "74532"),
    ("Maplecrest", "56108"),
    ("Silverpine", "62947"),
    ("Shadowridge", "71354"),
    ("Sunset Valley", "83462"),
    ("Oakendale", "47329"),
    ("Willowbend", "52013"),
    ("Crescent Hollow", "69238"),
    ("Autumnville", "51479"),
    ("San Francisco", "94016"),
];

/// BFCL's long-context data for this class (`long_context.py`, Apache-2.0).
struct LongContext {
    car_status_metadata: Py,
    intermediary_cities: Py,
    long_weather: Vec<(String, Py)>,
    parking_brake_instruction: Py,
}

static LONG_CONTEXT: LazyLock<LongContext> = LazyLock::new(|| {
    // Compiled in and checked by a test, so a parse failure cannot reach a user.
    let data: Py = serde_json::from_str(include_str!("vehicle_long_context.json")).unwrap_or(Py::None);
    let field = |key: &str| data.get(key).cloned().unwrap_or(Py::None);
    let long_weather = match field("long_weather") {
        Py::Dict(entries) => entries,
        _ => Vec::new(),
    };
    LongContext {
        car_status_metadata: field("car_status_metadata"),
        intermediary_cities: field("intermediary_cities"),
        long_weather,
        parking_brake_instruction: field("parking_brake_instruction"),
    }
});

/// BFCL's `VehicleControlAPI`: the car's state, public attributes as Python sets them.
#[derive(Debug, Clone)]
pub struct VehicleControlAPI {
    random: PyRandom,
    fuel_level: Py,
    battery_voltage: Py,
    engine_state: Py,
    remaining_unlocked_doors: i128,
    door_status: Vec<(String, Py)>,
    ac_temperature: Py,
    fan_speed: Py,
    ac_mode: Py,
    humidity_level: Py,
    head_light_status: Py,
    parking_brake_status: Py,
    parking_brake_force: Py,
    slope_angle: Py,
    brake_pedal_status: Py,
    brake_pedal_force: Py,
    distance_to_next_vehicle: Py,
    cruise_status: Py,
    destination: Py,
    front_left_tire_pressure: Py,
    front_right_tire_pressure: Py,
    rear_left_tire_pressure: Py,
    rear_right_tire_pressure: Py,
    long_context: bool,
}

impl Default for VehicleControlAPI {
    /// The state `DEFAULT_STATE` gives (an empty configuration).
    fn default() -> Self {
        VehicleControlAPI::from_config(&Py::Dict(Vec::new()), false)
    }
}

impl VehicleControlAPI {
    /// `_load_scenario(config, long_context)`: each attribute from the
    /// configuration, or from `DEFAULT_STATE` where it leaves the key out.
    fn from_config(config: &Py, long_context: bool) -> Self {
        let get = |key: &str, default: Py| config.get(key).cloned().unwrap_or(default);
        let seed = match config.get("random_seed") {
            Some(Py::Int(seed)) => *seed,
            Some(Py::Bool(b)) => i128::from(*b),
            _ => DEFAULT_RANDOM_SEED,
        };
        let door_status: Vec<(String, Py)> = match config.get("doorStatus") {
            Some(Py::Dict(entries)) => entries.clone(),
            _ => DOORS.iter().map(|d| (d.to_string(), str_py("unlocked"))).collect(),
        };
        // Recounted from the doors: a configured count is overwritten.
        let locked = door_status.iter().filter(|(_, s)| s.as_str() == Some("locked")).count();
        VehicleControlAPI {
            random: PyRandom::new(seed),
            fuel_level: get("fuelLevel", Py::Float(0.0)),
            battery_voltage: get("batteryVoltage", Py::Float(12.6)),
            engine_state: get("engineState", str_py("stopped")),
            remaining_unlocked_doors: 4 - locked as i128,
            door_status,
            ac_temperature: get("acTemperature", Py::Float(25.0)),
            fan_speed: get("fanSpeed", Py::Int(50)),
            ac_mode: get("acMode", str_py("auto")),
            humidity_level: get("humidityLevel", Py::Float(50.0)),
            head_light_status: get("headLightStatus", str_py("off")),
            parking_brake_status: get("parkingBrakeStatus", str_py("released")),
            parking_brake_force: get("parkingBrakeForce", Py::Float(0.0)),
            slope_angle: get("slopeAngle", Py::Float(0.0)),
            brake_pedal_status: get("brakePedalStatus", str_py("released")),
            brake_pedal_force: get("brakePedalForce", Py::Float(0.0)),
            distance_to_next_vehicle: get("distanceToNextVehicle", Py::Float(50.0)),
            cruise_status: get("cruiseStatus", str_py("inactive")),
            destination: get("destination", str_py("None")),
            front_left_tire_pressure: get("frontLeftTirePressure", Py::Float(32.0)),
            front_right_tire_pressure: get("frontRightTirePressure", Py::Float(32.0)),
            rear_left_tire_pressure: get("rearLeftTirePressure", Py::Float(30.0)),
            rear_right_tire_pressure: get("rearRightTirePressure", Py::Float(30.0)),
            long_context,
        }
    }
}

const METHODS: &[Method] = &[
    Method { name: "startEngine", params: &[req("ignitionMode")] },
    Method { name: "fillFuelTank", params: &[req("fuelAmount")] },
    Method { name: "lockDoors", params: &[req("unlock"), req("door")] },
    Method { name: "adjustClimateControl", params: &[req("temperature"), opt("unit"), opt("fanSpeed"), opt("mode")] },
    Method { name: "get_outside_temperature_from_google", params: &[] },
    Method { name: "get_outside_temperature_from_weather_com", params: &[] },
    Method { name: "setHeadlights", params: &[req("mode")] },
    Method { name: "displayCarStatus", params: &[req("option")] },
    Method { name: "activateParkingBrake", params: &[req("mode")] },
    Method { name: "pressBrakePedal", params: &[req("pedalPosition")] },
    Method { name: "releaseBrakePedal", params: &[] },
    Method { name: "setCruiseControl", params: &[req("speed"), req("activate"), req("distanceToNextVehicle")] },
    Method { name: "get_current_speed", params: &[] },
    Method { name: "display_log", params: &[req("messages")] },
    Method { name: "estimate_drive_feasibility_by_mileage", params: &[req("distance")] },
    Method { name: "liter_to_gallon", params: &[req("liter")] },
    Method { name: "gallon_to_liter", params: &[req("gallon")] },
    Method { name: "estimate_distance", params: &[req("cityA"), req("cityB")] },
    Method { name: "get_zipcode_based_on_city", params: &[req("city")] },
    Method { name: "set_navigation", params: &[req("destination")] },
    Method { name: "check_tire_pressure", params: &[] },
    Method { name: "find_nearest_tire_shop", params: &[] },
];

impl ApiClass for VehicleControlAPI {
    fn class_name(&self) -> &'static str {
        "VehicleControlAPI"
    }

    fn load(&mut self, config: &Py, long_context: bool) {
        *self = VehicleControlAPI::from_config(config, long_context);
    }

    fn methods(&self) -> &'static [Method] {
        METHODS
    }

    fn call(&mut self, method: &str, args: &Args) -> Result<Py, PyError> {
        let a = |name: &str| args.arg(name);
        match method {
            "startEngine" => Ok(self.startEngine(a("ignitionMode"))),
            "fillFuelTank" => self.fillFuelTank(a("fuelAmount")),
            "lockDoors" => self.lockDoors(a("unlock"), a("door")),
            "adjustClimateControl" => {
                let unit = args.get("unit").cloned().unwrap_or_else(|| str_py("celsius"));
                let fan_speed = args.get("fanSpeed").cloned().unwrap_or(Py::Int(50));
                let mode = args.get("mode").cloned().unwrap_or_else(|| str_py("auto"));
                self.adjustClimateControl(a("temperature"), &unit, &fan_speed, &mode)
            }
            "get_outside_temperature_from_google" => Ok(self.get_outside_temperature_from_google()),
            "get_outside_temperature_from_weather_com" => Ok(self.get_outside_temperature_from_weather_com()),
            "setHeadlights" => Ok(self.setHeadlights(a("mode"))),
            "displayCarStatus" => Ok(self.displayCarStatus(a("option"))),
            "activateParkingBrake" => Ok(self.activateParkingBrake(a("mode"))),
            "pressBrakePedal" => self.pressBrakePedal(a("pedalPosition")),
            "releaseBrakePedal" => Ok(self.releaseBrakePedal()),
            "setCruiseControl" => self.setCruiseControl(a("speed"), a("activate"), a("distanceToNextVehicle")),
            "get_current_speed" => Ok(self.get_current_speed()),
            "display_log" => Ok(self.display_log(a("messages"))),
            "estimate_drive_feasibility_by_mileage" => self.estimate_drive_feasibility_by_mileage(a("distance")),
            "liter_to_gallon" => self.liter_to_gallon(a("liter")),
            "gallon_to_liter" => self.gallon_to_liter(a("gallon")),
            "estimate_distance" => Ok(self.estimate_distance(a("cityA"), a("cityB"))),
            "get_zipcode_based_on_city" => Ok(self.get_zipcode_based_on_city(a("city"))),
            "set_navigation" => self.set_navigation(a("destination")),
            "check_tire_pressure" => self.check_tire_pressure(),
            "find_nearest_tire_shop" => Ok(self.find_nearest_tire_shop()),
            _ => Err(format!("'VehicleControlAPI' object has no attribute '{method}'")),
        }
    }

    fn attrs(&self) -> Vec<(&'static str, Attr<'_>)> {
        vec![
            ("fuelLevel", Attr::Py(&self.fuel_level)),
            ("batteryVoltage", Attr::Py(&self.battery_voltage)),
            ("engine_state", Attr::Py(&self.engine_state)),
            ("remainingUnlockedDoors", Attr::Made(Py::Int(self.remaining_unlocked_doors))),
            ("doorStatus", Attr::Dict(&self.door_status)),
            ("acTemperature", Attr::Py(&self.ac_temperature)),
            ("fanSpeed", Attr::Py(&self.fan_speed)),
            ("acMode", Attr::Py(&self.ac_mode)),
            ("humidityLevel", Attr::Py(&self.humidity_level)),
            ("headLightStatus", Attr::Py(&self.head_light_status)),
            ("parkingBrakeStatus", Attr::Py(&self.parking_brake_status)),
            ("brakePedalStatus", Attr::Py(&self.brake_pedal_status)),
            ("distanceToNextVehicle", Attr::Py(&self.distance_to_next_vehicle)),
            ("cruiseStatus", Attr::Py(&self.cruise_status)),
            ("destination", Attr::Py(&self.destination)),
            ("frontLeftTirePressure", Attr::Py(&self.front_left_tire_pressure)),
            ("frontRightTirePressure", Attr::Py(&self.front_right_tire_pressure)),
            ("rearLeftTirePressure", Attr::Py(&self.rear_left_tire_pressure)),
            ("rearRightTirePressure", Attr::Py(&self.rear_right_tire_pressure)),
            ("long_context", Attr::Made(Py::Bool(self.long_context))),
        ]
    }
}

// Named as BFCL's Python methods are, so a reader can hold them side by side.
#[allow(non_snake_case)]
impl VehicleControlAPI {
    fn startEngine(&mut self, ignition_mode: &Py) -> Py {
        let mode = ignition_mode.as_str();
        if mode == Some("STOP") {
            self.engine_state = str_py("stopped");
        }
        if self.remaining_unlocked_doors > 0 {
            let unlocked: Vec<&str> =
                self.door_status.iter().filter(|(_, s)| s.as_str() == Some("unlocked")).map(|(d, _)| d.as_str()).collect();
            let message =
                format!("All doors must be locked before starting the engine. Here are the unlocked doors: {}", unlocked.join(", "));
            return error(message);
        }
        if self.brake_pedal_status.as_str() != Some("pressed") {
            return error("Brake pedal needs to be pressed when starting the engine.");
        }
        if !self.brake_pedal_force.py_eq(&Py::Float(1000.0)) {
            return error("Must press the brake fully before starting the engine.");
        }
        if pyops::num(&self.fuel_level).is_some_and(|level| level.as_f64() < MIN_FUEL_LEVEL) {
            return error("Fuel tank is empty.");
        }
        if mode != Some("START") {
            return error("Invalid ignition mode.");
        }
        self.engine_state = str_py("running");
        dict([
            ("engineState", self.engine_state.clone()),
            ("fuelLevel", self.fuel_level.clone()),
            ("batteryVoltage", self.battery_voltage.clone()),
        ])
    }

    fn fillFuelTank(&mut self, fuel_amount: &Py) -> Result<Py, PyError> {
        if pyops::compare(Cmp::Lt, fuel_amount, &Py::Int(0))? {
            return Ok(error("Fuel amount cannot be negative."));
        }
        let filled = pyops::arith(Op::Add, &self.fuel_level, fuel_amount, false)?;
        if pyops::compare(Cmp::Lt, &Py::Int(MAX_FUEL_LEVEL), &filled)? {
            return Ok(error("Cannot fill gas above the tank capacity."));
        }
        if pyops::compare(Cmp::Lt, &filled, &Py::Float(MIN_FUEL_LEVEL))? {
            return Ok(error("Fuel tank is empty. Min fuel level is 0 gallons."));
        }
        self.fuel_level = filled;
        Ok(dict([("fuelLevel", self.fuel_level.clone())]))
    }

    fn lockDoors(&mut self, unlock: &Py, door: &Py) -> Result<Py, PyError> {
        let (wanted, step) = if truthy(unlock) { ("unlocked", 1) } else { ("locked", -1) };
        // Doors before a bad name stay changed, as in Python's loop.
        for d in iterate(door)? {
            let Some(key) = pyops::str_key(&d)? else {
                return Err(d.repr());
            };
            let Some(entry) = self.door_status.iter_mut().find(|(k, _)| k == key) else {
                return Err(str_repr(key));
            };
            if entry.1.as_str() == Some(wanted) {
                continue;
            }
            entry.1 = str_py(wanted);
            self.remaining_unlocked_doors += step;
        }
        Ok(dict([("lockStatus", str_py(wanted)), ("remainingUnlockedDoors", Py::Int(self.remaining_unlocked_doors))]))
    }

    fn adjustClimateControl(&mut self, temperature: &Py, unit: &Py, fan_speed: &Py, mode: &Py) -> Result<Py, PyError> {
        if !(pyops::compare(Cmp::Le, &Py::Int(0), fan_speed)? && pyops::compare(Cmp::Le, fan_speed, &Py::Int(100))?) {
            return Ok(error("Fan speed must be between 0 and 100."));
        }
        self.ac_temperature = temperature.clone();
        if unit.as_str() == Some("fahrenheit") {
            let scaled = pyops::arith(Op::Mul, &pyops::arith(Op::Sub, temperature, &Py::Int(32), false)?, &Py::Int(5), false)?;
            self.ac_temperature = pyops::arith(Op::Div, &scaled, &Py::Int(9), false)?;
        }
        self.fan_speed = fan_speed.clone();
        self.ac_mode = mode.clone();
        Ok(dict([
            ("currentACTemperature", temperature.clone()),
            ("climateMode", mode.clone()),
            ("humidityLevel", self.humidity_level.clone()),
        ]))
    }

    fn get_outside_temperature_from_google(&mut self) -> Py {
        let temperature = Py::Float(self.random.uniform(-10.0, 40.0));
        if self.long_context {
            // BFCL sets the key on its module-level dict, which has no such
            // key, so it always comes last.
            let mut weather = LONG_CONTEXT.long_weather.clone();
            weather.push(("outsideTemperature".to_string(), temperature));
            return Py::Dict(weather);
        }
        dict([("outsideTemperature", temperature)])
    }

    fn get_outside_temperature_from_weather_com(&self) -> Py {
        dict([("error", Py::Int(404))])
    }

    fn setHeadlights(&mut self, mode: &Py) -> Py {
        match mode.as_str() {
            Some("on") => {
                self.head_light_status = str_py("on");
                dict([("headlightStatus", str_py("on"))])
            }
            Some("off" | "auto") => {
                self.head_light_status = str_py("off");
                dict([("headlightStatus", str_py("off"))])
            }
            _ => error("Invalid headlight mode."),
        }
    }

    fn displayCarStatus(&self, option: &Py) -> Py {
        let mut status: Vec<(&str, Py)> = Vec::new();
        if self.long_context {
            status.push(("metadata", LONG_CONTEXT.car_status_metadata.clone()));
        }
        match option.as_str() {
            Some("fuel") => status.push(("fuelLevel", self.fuel_level.clone())),
            Some("battery") => status.push(("batteryVoltage", self.battery_voltage.clone())),
            Some("doors") => status.push(("doorStatus", Py::Dict(self.door_status.clone()))),
            Some("climate") => status.extend([
                ("currentACTemperature", self.ac_temperature.clone()),
                ("fanSpeed", self.fan_speed.clone()),
                ("climateMode", self.ac_mode.clone()),
                ("humidityLevel", self.humidity_level.clone()),
            ]),
            Some("headlights") => status.push(("headlightStatus", self.head_light_status.clone())),
            Some("parkingBrake") => status.extend([
                ("parkingBrakeStatus", self.parking_brake_status.clone()),
                ("parkingBrakeForce", self.parking_brake_force.clone()),
                ("slopeAngle", self.slope_angle.clone()),
            ]),
            Some("brakePedal") => {
                status.extend([("brakePedalStatus", self.brake_pedal_status.clone()), ("brakePedalForce", self.brake_pedal_force.clone())])
            }
            Some("engine") => status.push(("engineState", self.engine_state.clone())),
            _ => status.push(("error", str_py("Invalid option"))),
        }
        dict(status)
    }

    fn activateParkingBrake(&mut self, mode: &Py) -> Py {
        let (status, force) = match mode.as_str() {
            Some("engage") => ("engaged", 500.0),
            Some("release") => ("released", 0.0),
            _ => return error("Invalid mode"),
        };
        self.parking_brake_status = str_py(status);
        self.parking_brake_force = Py::Float(force);
        // Python sets 10.0 on release too.
        self.slope_angle = Py::Float(10.0);
        let mut result = Vec::new();
        if self.long_context {
            result.push(("parkingBrakeInstruction", LONG_CONTEXT.parking_brake_instruction.clone()));
        }
        result.extend([("parkingBrakeStatus", str_py(status)), ("_parkingBrakeForce", Py::Float(force)), ("_slopeAngle", Py::Float(10.0))]);
        dict(result)
    }

    fn pressBrakePedal(&mut self, pedal_position: &Py) -> Result<Py, PyError> {
        if !(pyops::compare(Cmp::Le, &Py::Int(0), pedal_position)? && pyops::compare(Cmp::Le, pedal_position, &Py::Int(1))?) {
            return Ok(error("Pedal position must be between 0 and 1."));
        }
        if pedal_position.py_eq(&Py::Int(0)) {
            return Ok(self.releaseBrakePedal());
        }
        let force = pyops::arith(Op::Mul, pedal_position, &Py::Int(1000), false)?;
        self.brake_pedal_status = str_py("pressed");
        self.brake_pedal_force = force.clone();
        Ok(dict([("brakePedalStatus", str_py("pressed")), ("brakePedalForce", Py::Float(pyops::float(&force)?))]))
    }

    fn releaseBrakePedal(&mut self) -> Py {
        self.brake_pedal_status = str_py("released");
        self.brake_pedal_force = Py::Float(0.0);
        dict([("brakePedalStatus", str_py("released")), ("brakePedalForce", Py::Float(0.0))])
    }

    fn setCruiseControl(&mut self, speed: &Py, activate: &Py, distance_to_next_vehicle: &Py) -> Result<Py, PyError> {
        let distance = pyops::float(distance_to_next_vehicle)?;
        let speed = pyops::float(speed)?;
        if self.engine_state.as_str() == Some("stopped") {
            return Ok(error("Start the engine before activating the cruise control."));
        }
        self.distance_to_next_vehicle = Py::Float(distance);
        let status = if truthy(activate) {
            // Python's `speed % 5` for the non-negative speeds that reach it.
            if !(0.0..=120.0).contains(&speed) || speed % 5.0 != 0.0 {
                return Ok(error("Invalid speed"));
            }
            "active"
        } else {
            "inactive"
        };
        self.cruise_status = str_py(status);
        Ok(dict([("cruiseStatus", str_py(status)), ("currentSpeed", Py::Float(speed)), ("distanceToNextVehicle", Py::Float(distance))]))
    }

    fn get_current_speed(&mut self) -> Py {
        dict([("currentSpeed", Py::Float(self.random.uniform(0.0, 120.0)))])
    }

    fn display_log(&self, messages: &Py) -> Py {
        dict([("log", messages.clone())])
    }

    fn estimate_drive_feasibility_by_mileage(&self, distance: &Py) -> Result<Py, PyError> {
        let range = pyops::arith(Op::Mul, &self.fuel_level, &Py::Float(MILE_PER_GALLON), false)?;
        Ok(dict([("canDrive", Py::Bool(!pyops::compare(Cmp::Lt, &range, distance)?))]))
    }

    fn liter_to_gallon(&self, liter: &Py) -> Result<Py, PyError> {
        Ok(dict([("gallon", pyops::arith(Op::Mul, liter, &Py::Float(0.264172), false)?)]))
    }

    fn gallon_to_liter(&self, gallon: &Py) -> Result<Py, PyError> {
        Ok(dict([("liter", pyops::arith(Op::Mul, gallon, &Py::Float(3.78541), false)?)]))
    }

    fn estimate_distance(&self, city_a: &Py, city_b: &Py) -> Py {
        let (a, b) = (city_a.as_str(), city_b.as_str());
        let found = DISTANCES.iter().find(|(x, y, _)| (a == Some(x) && b == Some(y)) || (a == Some(y) && b == Some(x)));
        let mut distance = match found {
            Some((_, _, km)) => vec![("distance", Py::Float(*km))],
            None => vec![("error", str_py("distance not found in database."))],
        };
        if self.long_context {
            distance.push(("intermediaryCities", LONG_CONTEXT.intermediary_cities.clone()));
        }
        dict(distance)
    }

    fn get_zipcode_based_on_city(&self, city: &Py) -> Py {
        let zipcode = ZIPCODES.iter().find(|(name, _)| city.as_str() == Some(name)).map_or("00000", |(_, zip)| zip);
        dict([("zipcode", str_py(zipcode))])
    }

    fn set_navigation(&mut self, destination: &Py) -> Result<Py, PyError> {
        // Python stores the destination before the concatenation can fail.
        self.destination = destination.clone();
        match destination {
            Py::Str(d) => Ok(dict([("status", str_py(&format!("Navigating to {d}")))])),
            other => Err(format!("can only concatenate str (not \"{}\") to str", other.py_type().name())),
        }
    }

    fn check_tire_pressure(&self) -> Result<Py, PyError> {
        let mut total = self.front_left_tire_pressure.clone();
        for pressure in [&self.front_right_tire_pressure, &self.rear_left_tire_pressure, &self.rear_right_tire_pressure] {
            total = pyops::arith(Op::Add, &total, pressure, false)?;
        }
        let mean = pyops::arith(Op::Div, &total, &Py::Int(4), false)?;
        let healthy = pyops::compare(Cmp::Le, &Py::Int(30), &mean)? && pyops::compare(Cmp::Le, &mean, &Py::Int(35))?;
        let car_info = if self.long_context { LONG_CONTEXT.car_status_metadata.clone() } else { Py::Dict(Vec::new()) };
        Ok(dict([
            ("frontLeftTirePressure", self.front_left_tire_pressure.clone()),
            ("frontRightTirePressure", self.front_right_tire_pressure.clone()),
            ("rearLeftTirePressure", self.rear_left_tire_pressure.clone()),
            ("rearRightTirePressure", self.rear_right_tire_pressure.clone()),
            ("healthy_tire_pressure", Py::Bool(healthy)),
            ("car_info", car_info),
        ]))
    }

    fn find_nearest_tire_shop(&self) -> Py {
        dict([("shopLocation", str_py("456 Oakwood Avenue, Rivermist, 83214"))])
    }
}

fn str_py(s: &str) -> Py {
    Py::Str(s.to_string())
}

#[cfg(test)]
mod tests;
